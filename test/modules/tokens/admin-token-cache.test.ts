import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_CACHE_MS, createTokensService, type TokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/** Counts the statements that read the tokens table. */
class TokenReads implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node.from).includes('"name":"tokens"')) this.count += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Admin tokens are cached for ADMIN_TOKEN_CACHE_MS. Under load the entry expires for every request at
 * once: those requests share one read of the tokens table rather than each sending its own. A read
 * begun before a revocation must not put the revoked token back in the cache, and user tokens, never
 * cached, are read per request.
 */
describe.each(testDatabases)('the admin token cache on %s', (database) => {
  let t: TestApp;
  let reads: TokenReads;
  let tokens: TokensService;

  beforeAll(async () => {
    t = await startTestApp(database);
    reads = new TokenReads();
    // Its own database handle, so its own cache (the cache belongs to the handle).
    tokens = createTokensService({ db: t.storage.db.withPlugin(reads), clock: t.clock });
  });
  afterAll(async () => {
    await t.close();
  });

  it('renews an expired entry with one read however many requests miss it together', async () => {
    const { token, userId } = await tokens.createAdminToken(t.uniqueId('renew'));
    expect((await tokens.resolve(token))?.userId).toBe(userId);
    await sleep(ADMIN_TOKEN_CACHE_MS + 100);
    reads.count = 0;
    const principals = await Promise.all(Array.from({ length: 30 }, () => tokens.resolve(token)));
    expect(principals.every((principal) => principal?.userId === userId && principal.kind === 'admin')).toBe(true);
    expect(reads.count).toBe(1);
    // Renewed: served from the cache again.
    expect((await tokens.resolve(token))?.userId).toBe(userId);
    expect(reads.count).toBe(1);
  });

  it('does not cache a token again from a read begun before its revocation', async () => {
    const name = t.uniqueId('revoke');
    const { token } = await tokens.createAdminToken(name);
    expect(await tokens.resolve(token)).not.toBeNull();
    await sleep(ADMIN_TOKEN_CACHE_MS + 100);
    // A renewal in flight while the token is revoked; whatever it answers, it is not kept.
    const renewal = tokens.resolve(token);
    expect(await tokens.revokeAdminToken(name)).toBe(1);
    await renewal;
    expect(await tokens.resolve(token)).toBeNull();
    expect(await Promise.all([tokens.resolve(token), tokens.resolve(token)])).toEqual([null, null]);
  });

  it('reads a user token for every request', async () => {
    const userId = t.uniqueId('user');
    expect((await adminClient(t).call('PUT', '/api/v2/users', { userId, displayName: 'Reader' })).statusCode).toBe(200);
    const { token } = await tokens.issue({ kind: 'user', userId });
    reads.count = 0;
    const principals = await Promise.all(Array.from({ length: 10 }, () => tokens.resolve(token)));
    expect(principals.every((principal) => principal?.kind === 'user')).toBe(true);
    expect(reads.count).toBe(10);
  });
});
