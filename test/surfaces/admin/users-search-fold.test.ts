import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * The users search folds both sides alike (storage/search-fold.ts): JavaScript's toLowerCase writes
 * a final sigma where PostgreSQL's lower() writes a plain one, and PostgreSQL keeps a stored lower-case
 * final sigma, so the column and the query are folded the same way. "ΟΔΟΣ" finds its user on both
 * databases, and so does the prefix "ΑΣ" of "ΑΣΠΑΣΙΑ".
 */
describe.each(testDatabases)('users search folding on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const found = async (search: string) =>
    ((await admin.call('GET', `/api/v2/users?search=${encodeURIComponent(search)}&limit=100`)).json().users as Array<{ info: { userId: string } }>).map(
      (user) => user.info.userId,
    );

  it('finds Greek names by their whole capital form and by a capital prefix ending in sigma', async () => {
    const [odos, aspasia] = [t.uniqueId('odos'), t.uniqueId('aspasia')];
    await admin.createUser(odos, { displayName: 'ΟΔΟΣ' });
    await admin.createUser(aspasia, { displayName: 'ΑΣΠΑΣΙΑ' });
    expect(await found('ΟΔΟΣ')).toContain(odos);
    expect(await found('οδος')).toContain(odos);
    expect(await found('ΑΣ')).toContain(aspasia);
    expect(await found('Élo')).toEqual([]);
  });

  it('finds "Νίκος" by its own spelling', async () => {
    const nikos = t.uniqueId('nikos');
    await admin.createUser(nikos, { displayName: 'Νίκος' });
    expect(await found('Νί')).toContain(nikos);
    expect(await found('Νίκος')).toContain(nikos);
    expect(await found('νίκος')).toContain(nikos);
  });
});
