import { describe, expect, it } from 'vitest';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp } from '../../helpers/test-app.js';
import { type EndUser, trayKit } from '../../helpers/tray.js';

/**
 * One network id per deployment: userinfo's `nid` / `networkId` and the tray's record `networkId` and
 * `lastRead.netid_uid` name the same network, so a client of the original can match them up.
 * PARLEY_NETWORK_ID sets it; unset, an id made once per database serves both.
 */
describe.each([
  { label: 'unset: an id of the database', env: {} as Record<string, string>, expected: null },
  { label: 'PARLEY_NETWORK_ID', env: { PARLEY_NETWORK_ID: 'noomers' }, expected: 'noomers' },
])('the network id ($label)', ({ env, expected }) => {
  it("is the same in userinfo and in the signed-in user's tray records", async () => {
    const t = await startTestApp('sqlite', { PARLEY_TRAY_ENABLED: '1', ...env });
    try {
      const s = signInClient(t);
      const { person, client, code } = await s.codeFor();
      const tokenResponse = await s.token(
        { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
        { id: client.clientId, secret: client.clientSecret as string },
      );
      const accessToken = tokenResponse.json<{ access_token: string }>().access_token;
      const info = (await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${accessToken}` } })).json<{
        nid: string;
        networkId: string;
      }>();
      if (expected !== null) expect(info.nid).toBe(expected);
      else expect(info.nid).toMatch(/^[0-9a-f]{24}$/);
      expect(info.networkId).toBe(info.nid);

      // The signed-in user posts through the client API with the same access token; someone likes it.
      const kit = trayKit(t);
      const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
        t.app.inject({ method, url, headers: { authorization: `Bearer ${accessToken}` }, ...(payload ? { payload } : {}) });
      const reader: EndUser = {
        userId: person.userId,
        name: 'Ada',
        token: accessToken,
        call,
        async ok<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) {
          const response = await t.app.inject({ method, url, headers: { authorization: `Bearer ${accessToken}` }, ...(payload ? { payload } : {}) });
          if (response.statusCode !== 200) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
          return response.json<T>();
        },
      };
      const postId = await kit.post(reader, null);
      await kit.like(await kit.user('fan'), postId);
      const history = await kit.history(reader);
      expect(history.data).toHaveLength(1);
      expect(history.data[0]?.networkId).toBe(info.nid);
      expect(history.lastRead.netid_uid).toBe(`${info.nid}_${person.userId}`);
    } finally {
      await t.close();
    }
  });
});
