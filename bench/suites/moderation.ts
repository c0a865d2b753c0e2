import { randomBytes } from 'node:crypto';
import { compileMatcher, type Matcher } from '../../src/modules/moderation-rules/matcher.js';
import { type BenchRow, type BenchSuite, alternateRounds, type LoadOptions, measure, printTable, type RunningServer, startParley } from '../lib.js';

/**
 * Moderation rules: every message is checked against every rule, so the compiled matcher's cost must
 * not grow with the number of rules.
 * 1. In-process: checks per second of a typical 200-character message against 1 and 10,000 rules.
 * 2. Over HTTP: POST /api/v2/message with no rules and with 10,000 blacklisted words, each on a fresh
 *    SQLite server (same starting state), at 50 connections. Target: ratio >= 0.9.
 */
const WORDS = 10_000;
/** Alternating rounds per server: the difference measured (~2%) is smaller than the machine's drift. */
const ROUNDS = 6;
const TEXT_ASCII =
  'Hi team, the release notes for version 4.2 are ready. Please look at the changes to the billing page and the new ' +
  'onboarding flow before Friday; details are at https://docs.example.com/release/4.2 thanks!';
const TEXT_CYRILLIC =
  'Привет всем, заметки к выпуску 4.2 готовы. Посмотрите, пожалуйста, изменения на странице оплаты и новый процесс ' +
  'регистрации до пятницы; подробности на https://docs.example.com/release/4.2 спасибо!';
const TEXT_THAI =
  'สวัสดีทุกคน บันทึกประจำรุ่น 4.2 พร้อมแล้ว โปรดตรวจสอบการเปลี่ยนแปลงของหน้าชำระเงินและขั้นตอนการลงทะเบียนใหม่ก่อนวันศุกร์ ' +
  'รายละเอียดอยู่ที่ https://docs.example.com/release/4.2 ขอบคุณครับ';

/**
 * Pseudo-random words of 4 to 7 letters in three scripts, half exact-word, none occurring in the
 * bench texts (so every check scans the whole text and the automaton's root has many edges).
 */
function blacklistWords(count: number): Array<{ word: string; exactWord: boolean }> {
  const alphabets = ['abcdefghijklmnopqrstuvwxyz', 'абвгдеёжзийклмнопрстуфхцчшщьыъэюя', 'กขฃคฅฆงจฉชซฌญฎฏฐฑฒณดตถทธนบปผฝพฟภมยรลวศษสหฬอฮ'];
  const texts = [TEXT_ASCII, TEXT_CYRILLIC, TEXT_THAI].map((text) => text.toLowerCase());
  const seen = new Set<string>();
  const words: Array<{ word: string; exactWord: boolean }> = [];
  let seed = 12345;
  // 32-bit arithmetic (Math.imul): in doubles the product overflows 2^53, the low bits are lost and the
  // sequence falls into a cycle of ~16,000 states, too few for 10,000 distinct words (the loop never
  // ended). The high bits are returned: an LCG's low bits repeat with short periods.
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed >>> 8;
  };
  while (words.length < count) {
    const alphabet = [...(alphabets[words.length % alphabets.length] as string)];
    let word = '';
    for (let k = 4 + (next() % 4); k > 0; k--) word += alphabet[next() % alphabet.length];
    if (seen.has(word) || texts.some((text) => text.includes(word))) continue;
    seen.add(word);
    words.push({ word, exactWord: words.length % 2 === 0 });
  }
  return words;
}

function throughput(name: string, matcher: Matcher, text: string, baseline?: number): { row: string; perSecond: number } {
  if (matcher.check(text) !== null) throw new Error(`${name}: the bench text must pass`);
  for (let i = 0; i < 5_000; i++) matcher.check(text);
  const budgetMs = Math.min(3000, Number(process.env.BENCH_SECONDS ?? 10) * 200);
  let checks = 0;
  const started = performance.now();
  while (performance.now() - started < budgetMs) {
    for (let i = 0; i < 500; i++) matcher.check(text);
    checks += 500;
  }
  const perSecond = checks / ((performance.now() - started) / 1000);
  const ratio = baseline === undefined ? '1.00' : (perSecond / baseline).toFixed(2);
  return { row: `| ${name} | ${[...text].length} | ${Math.round(perSecond)} | ${(1e6 / perSecond).toFixed(2)} | ${ratio} |`, perSecond };
}

function runMatcherBench(): void {
  const words = blacklistWords(WORDS);
  const urls = Array.from({ length: WORDS }, (_, i) => `site${i}.example.org/path${i}`);
  urls.push('docs.example.com/release');
  let started = performance.now();
  const withWords = compileMatcher({ blacklist: words, whitelist: [] });
  const compileWordsMs = performance.now() - started;
  started = performance.now();
  const withBoth = compileMatcher({ blacklist: words, whitelist: urls });
  const compileBothMs = performance.now() - started;
  // The baselines hold one rule of each kind: a matcher with no rules skips the scan altogether, so a
  // ratio to it would measure the scan, not the effect of the number of rules.
  const oneWord = compileMatcher({ blacklist: words.slice(0, 1), whitelist: [] });
  const oneOfEach = compileMatcher({ blacklist: words.slice(0, 1), whitelist: ['docs.example.com/release'] });

  const lines = [
    '\n## Matcher, in-process (one check = one message text)',
    '| rules | characters | checks/s | µs per check | ratio to one rule of each kind |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [script, text] of [
    ['ASCII', TEXT_ASCII],
    ['Cyrillic', TEXT_CYRILLIC],
    ['Thai', TEXT_THAI],
  ] as const) {
    const baseWord = throughput(`1 blacklisted word, ${script}`, oneWord, text);
    lines.push(baseWord.row);
    lines.push(throughput(`${WORDS.toLocaleString('en')} blacklisted words, ${script}`, withWords, text, baseWord.perSecond).row);
    const baseBoth = throughput(`1 word + 1 URL, ${script}`, oneOfEach, text);
    lines.push(baseBoth.row);
    lines.push(throughput(`${WORDS.toLocaleString('en')} words + ${urls.length.toLocaleString('en')} URLs, ${script}`, withBoth, text, baseBoth.perSecond).row);
  }
  lines.push(`\nCompile: ${WORDS.toLocaleString('en')} words ${compileWordsMs.toFixed(0)} ms; words + URLs ${compileBothMs.toFixed(0)} ms.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** A fresh server with `ruleCount` blacklisted words and a channel, warmed up, ready to be measured. */
async function serverWithRules(ruleCount: number): Promise<{ parley: RunningServer; load: LoadOptions }> {
  const parley = await startParley();
  const headers = { authorization: `Bearer ${parley.adminToken}`, 'content-type': 'application/json' };
  const channelId = `bench-${randomBytes(3).toString('hex')}`;
  const created = await fetch(`${parley.url}/api/v2/channel`, { method: 'POST', headers, body: JSON.stringify({ channelId, type: 'standard' }) });
  if (!created.ok) throw new Error(`channel create: ${created.status}`);
  const words = blacklistWords(ruleCount).map((entry) => entry.word);
  for (let i = 0; i < words.length; i += 100) {
    const response = await fetch(`${parley.url}/api/v2/blacklist/records`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ regexs: words.slice(i, i + 100) }),
    });
    if (!response.ok) throw new Error(`rules: ${response.status} ${await response.text()}`);
  }
  const body = JSON.stringify({ channelId, type: 'text', data: { text: TEXT_ASCII } });
  const load: LoadOptions = { url: `${parley.url}/api/v2/message`, method: 'POST', headers, body };
  // Warm-up, as in the messages suite: JIT and statement caches, so both servers are measured hot.
  await measure('warm-up', { ...load, durationSeconds: 2 });
  return { parley, load };
}

/**
 * Both servers run side by side (idle while the other is measured) and are measured in alternating
 * rounds, so a drift in the shared machine's load falls on both alike instead of on whichever ran second.
 */
async function measureMessageCreate(): Promise<[BenchRow, BenchRow]> {
  const none = await serverWithRules(0);
  try {
    const many = await serverWithRules(WORDS);
    try {
      return await alternateRounds(
        { name: 'POST /api/v2/message, no rules', load: none.load },
        { name: `POST /api/v2/message, ${WORDS.toLocaleString('en')} blacklisted words`, load: many.load },
        ROUNDS,
      );
    } finally {
      await many.parley.stop();
    }
  } finally {
    await none.parley.stop();
  }
}

export const moderationSuite: BenchSuite = {
  name: 'moderation',
  async run() {
    runMatcherBench();
    const [none, many] = await measureMessageCreate();
    const ratio = many.requestsPerSecond / Math.max(1, none.requestsPerSecond);
    many.note = `${many.note ? `${many.note}; ` : ''}ratio to no rules ${ratio.toFixed(2)} (target >= 0.90)`;
    printTable('Message create with blacklisted words (SQLite, 50 connections, two servers measured in alternating rounds)', [none, many]);
  },
};
