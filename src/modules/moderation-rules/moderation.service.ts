import { randomUUID } from 'node:crypto';
import type { EventBus } from '../../events/bus.js';
import { AppError } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { compileMatcher, EMPTY_MATCHER, type Matcher, type Violation } from './matcher.js';
import { createRulesStore } from './rules.store.js';
import type { RuleRow } from './rules.types.js';
import { type CheckedText, dataTextsOf } from './user-texts.js';

/** Bus topic announcing a rule change; the message is the new rules version. */
export const RULES_TOPIC = 'moderation.rules';
/** How old a matcher may be before a check first asks the database whether rules changed. */
export const STALE_AFTER_MS = 1000;

export type { CheckedText } from './user-texts.js';

/** The refusal of a text; a key is named by its object, as "has a key that ...". */
function errorOf(violation: Violation, field: string, isKey: boolean): AppError {
  const subject = isKey ? 'has a key that ' : '';
  if (violation.kind === 'blacklisted') {
    // The word itself is not named: the answer goes to whoever wrote the text.
    return new AppError('blacklisted', undefined, { detail: [{ field: `body.${field}`, message: `${subject}contains a blacklisted word` }] });
  }
  const link = violation.link.slice(0, 200);
  return new AppError('notWhitelisted', undefined, {
    detail: [
      { field: `body.${field}`, message: isKey ? `has a key that contains the link ${link}, which is not whitelisted` : `the link ${link} is not whitelisted` },
    ],
  });
}

function matcherOf(rows: ReadonlyArray<Pick<RuleRow, 'id' | 'kind' | 'pattern' | 'is_match_exact_word'>>): Matcher {
  return compileMatcher({
    blacklist: rows.filter((row) => row.kind === 'blacklist').map((row) => ({ word: row.pattern, exactWord: row.is_match_exact_word === 1, ruleId: row.id })),
    whitelist: rows.filter((row) => row.kind === 'whitelist').map((row) => row.pattern),
  });
}

/** Runs `work` one call at a time; callers arriving while a run waits to start share that run. */
function oneAtATime(work: () => Promise<void>): () => Promise<void> {
  let current: Promise<void> = Promise.resolve();
  let queued: Promise<void> | null = null;
  return () => {
    if (queued) return queued;
    const next = current
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return work();
      });
    queued = next;
    current = next;
    return next;
  };
}

/**
 * Holds the enabled rules compiled into one matcher and keeps it current:
 * - on this instance, the rules service calls rebuild() right after a rule write commits;
 * - other instances hear of it on the event bus (RULES_TOPIC) and rebuild at once;
 * - as a safety net (a lost bus message, no shared bus), a check made when the matcher is more than
 *   STALE_AFTER_MS old first reads the rules version from the database (one primary-key read, at
 *   most once a second per instance) and rebuilds if it changed.
 */
export function createModerationService(deps: {
  db: Executor;
  bus: EventBus | null;
  onBackgroundError?: (error: unknown) => void;
  /** Monotonic milliseconds; injectable for tests. */
  now?: () => number;
}) {
  const store = createRulesStore(deps.db);
  const now = deps.now ?? (() => performance.now());
  let matcher: Matcher = EMPTY_MATCHER;
  let loadedVersion: string | null = null;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let checking: Promise<void> | null = null;

  async function load(): Promise<void> {
    // The version is read before the rules: rules newer than the version only cause one more rebuild.
    const version = await store.readVersion();
    matcher = matcherOf(await store.listEnabled());
    loadedVersion = version;
    checkedAt = now();
  }

  /** Recompiles from the database. */
  const rebuild = oneAtATime(load);

  async function refreshIfStale(): Promise<void> {
    if (now() - checkedAt < STALE_AFTER_MS) return;
    checking ??= (async () => {
      try {
        if ((await store.readVersion()) !== loadedVersion) await rebuild();
      } finally {
        checkedAt = now();
        checking = null;
      }
    })();
    await checking;
  }

  function checkText(text: string, field = 'data.text', isKey = false): void {
    const violation = matcher.check(text);
    if (violation) throw errorOf(violation, field, isKey);
  }

  function checkTexts(texts: readonly CheckedText[]): void {
    for (const item of texts) checkText(item.text, item.field, item.isKey === true);
  }

  return {
    rebuild,
    refreshIfStale,
    checkText,

    /**
     * Every enabled rule a message text breaks, by the matcher a send checks with (fresh as a send's
     * is); an empty list is a text a send takes. Nothing is stored.
     */
    async violationsOf(text: string): Promise<Violation[]> {
      await refreshIfStale();
      return matcher.violations(text);
    },

    /** Checks every key and string value of custom data. */
    checkValues(value: unknown, field = 'data'): void {
      checkTexts(dataTextsOf(value, field));
    },

    /**
     * The one text guard every writer of user-visible text calls: message texts, custom data keys and
     * strings, tags, topics, captions and file names; posts, comments, reaction names, community and
     * channel names. Synchronous while the rules are fresh (every request but one a second): no
     * promise to settle.
     */
    guard(_actor: unknown, input: { texts: readonly CheckedText[] }): void | Promise<void> {
      // No named closure here: tsx compiles with esbuild's keepNames, which gives every named function
      // created per call an Object.defineProperty of its name (about a microsecond on the create path).
      if (now() - checkedAt < STALE_AFTER_MS) return checkTexts(input.texts);
      return refreshIfStale().then(() => checkTexts(input.texts));
    },

    /** Loads the rules and listens for changes made on other instances. */
    async start(): Promise<void> {
      await rebuild();
      await deps.bus?.subscribe(RULES_TOPIC, (version) => {
        if (version === loadedVersion) return;
        rebuild().catch((error: unknown) => deps.onBackgroundError?.(error));
      });
    },

    /** A fresh version stamp for a rule write. */
    newVersion: (): string => randomUUID(),

    /** Tells the other instances that rules changed (after the write committed and this one rebuilt). */
    announce(version: string): void {
      deps.bus?.publish(RULES_TOPIC, version).catch((error: unknown) => deps.onBackgroundError?.(error));
    },

    get stats() {
      return { version: loadedVersion, blacklist: matcher.blacklistSize, whitelist: matcher.whitelistSize };
    },
  };
}

export type ModerationService = ReturnType<typeof createModerationService>;
