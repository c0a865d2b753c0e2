import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * id_token_hint: a hint issued elsewhere is refused, and a sign-in as
 * anyone but the hinted subject answers the client login_required (OIDC Core 3.1.2.1) instead of the
 * same login page again, for ever.
 */
describe('id_token_hint', () => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    s = signInClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const hintFor = (sub: string, iss: string) =>
    new SignJWT({ sub, aud: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(iss)
      .setIssuedAt()
      .sign(new TextEncoder().encode('k'.repeat(32)));

  it('a user who signs in as someone other than the hinted subject gets an answer, not the same login page again', async () => {
    const client = await s.createOAuthClient();
    const hinted = await s.createPerson();
    const other = await s.createPerson();
    const hint = await hintFor(hinted.userId, 'http://127.0.0.1:8080');
    const query = s.authorizeQuery({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: 'openid',
      state: 'st',
      id_token_hint: hint,
    });
    let cookie = '';
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const { response, cookie: next } = await s.submitLogin({ username: other.username, password: other.password, query, cookie });
      cookie = next;
      const said = /Signing in did not complete[^<]*/.exec(response.body)?.[0] ?? '';
      outcomes.push(`${response.statusCode} ${String(response.headers.location ?? '').slice(0, 40)}${said}`);
    }
    // Never '401 Signing in did not complete. Please try again.': trying again could never succeed.
    expect(outcomes.filter((outcome) => outcome.startsWith('401 Signing in did not complete'))).toEqual([]);
    const { response } = await s.submitLogin({ username: other.username, password: other.password, query, cookie });
    expect(response.statusCode).toBe(303);
    expect(s.redirectParams(response).get('error')).toBe('login_required');
    expect(s.redirectParams(response).get('state')).toBe('st');
  });

  it('a hint issued by another server is not read as a subject of this one', async () => {
    const client = await s.createOAuthClient();
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const foreign = await hintFor('someone-elsewhere', 'https://other-idp.example');
    const response = await s.authorize(
      s.authorizeQuery({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: 'openid',
        prompt: 'none',
        id_token_hint: foreign,
      }),
      cookie,
    );
    const params = s.redirectParams(response);
    // Not login_required: a foreign sub is not compared with the signed-in user.
    expect(params.get('error')).toBe('invalid_request');
  });
});
