import { describe, expect, it } from 'vitest';
import { ALLOWED_FOREIGN_WRITES, checkTableOwners, findWrites, readTree, type SourceText } from '../../scripts/check-table-owners.js';

/**
 * `npm run owners`: every table write in src/ comes from a store file of the table's owner
 * (src/storage/ownership.ts), apart from the allowlisted ones, and the allowlist holds only writes
 * that still exist. The planted files below are virtual: the checker reads text, not the disk.
 */
const tree = readTree();
const known = new Set(tree.tables);

function withFiles(...planted: SourceText[]): SourceText[] {
  const paths = new Set(planted.map((file) => file.path));
  return [...tree.files.filter((file) => !paths.has(file.path)), ...planted];
}

describe('table owners', () => {
  it('finds no problem in the tree', () => {
    expect(checkTableOwners(tree)).toEqual([]);
  });

  it('reports a Kysely write from another module, with its line, table and owner', () => {
    const planted = {
      path: 'src/modules/reactions/x.ts',
      text: "import type { Executor } from '../../storage/database.js';\n\nexport const f = (db: Executor) => db.insertInto('users');\n",
    };
    expect(checkTableOwners({ ...tree, files: withFiles(planted) })).toEqual([
      {
        kind: 'foreign',
        file: 'src/modules/reactions/x.ts',
        line: 3,
        table: 'users',
        owner: 'users',
        message: 'owned by users (src/modules/users): call its service instead',
      },
    ]);
  });

  it('reads SQL text: tagged templates and plain strings, aliases, and prose that only looks like it', () => {
    const text = [
      `await sql\`delete from channel_members where user_id = \${userId}\`.execute(db);`,
      "sqlite.prepare('update messages as m set flag_count = 0 where id = ?');",
      'const help = "Delete from the list, update the page, then insert into the form.";',
      "db.updateTable('tray_state as s');",
    ].join('\n');
    const writes = findWrites({ path: 'src/modules/tray/y.ts', text }, known);
    expect(writes).toEqual([
      { file: 'src/modules/tray/y.ts', line: 1, table: 'channel_members' },
      { file: 'src/modules/tray/y.ts', line: 2, table: 'messages' },
      { file: 'src/modules/tray/y.ts', line: 4, table: 'tray_state' },
    ]);
  });

  it("sees the writes of the owners' raw statements", () => {
    const read = (path: string) => tree.files.find((file) => file.path === path) as SourceText;
    const tables = (path: string) => [...new Set(findWrites(read(path), known).map((write) => write.table))].sort();
    expect(tables('src/modules/messages/messages.postgres.ts')).toEqual(['message_tags', 'messages']);
    expect(tables('src/modules/messages/messages.sqlite.ts')).toEqual(['message_tags', 'messages']);
    expect(tables('src/modules/channels/channel-counters.store.ts')).toEqual(['channel_members', 'channels']);
    expect(tables('src/events/outbox.ts')).toEqual(['outbox']);
  });

  it('reports a write inside the owner outside its store files, and a table named at run time', () => {
    const planted = [
      { path: 'src/modules/users/users.extra.ts', text: "db.deleteFrom('user_flags');" },
      { path: 'src/modules/channels/z.store.ts', text: `db.insertInto(table);\nsql\`insert into \${table} (id) values (1)\`;` },
    ];
    const problems = checkTableOwners({ ...tree, files: withFiles(...planted) });
    expect(problems.map(({ kind, file, line, table, owner }) => ({ kind, file, line, table, owner }))).toEqual([
      { kind: 'outside-store', file: 'src/modules/users/users.extra.ts', line: 1, table: 'user_flags', owner: 'users' },
      { kind: 'dynamic', file: 'src/modules/channels/z.store.ts', line: 1, table: null, owner: null },
      { kind: 'dynamic', file: 'src/modules/channels/z.store.ts', line: 2, table: null, owner: null },
    ]);
  });

  it('holds an allowlisted file to its tables, and other files to none', () => {
    const erasure = 'src/modules/privacy/erasure.store.ts';
    const original = tree.files.find((file) => file.path === erasure) as SourceText;
    const planted = [
      { path: erasure, text: `${original.text}\nexport const g = (db: Executor) => db.deleteFrom('roles');\n` },
      { path: 'src/modules/privacy/erasure.more.ts', text: "db.deleteFrom('users');" },
    ];
    const problems = checkTableOwners({ ...tree, files: withFiles(...planted) });
    expect(problems.map(({ kind, file, table }) => ({ kind, file, table }))).toEqual([
      { kind: 'foreign', file: erasure, table: 'roles' },
      { kind: 'foreign', file: 'src/modules/privacy/erasure.more.ts', table: 'users' },
    ]);
  });

  it('fails on an allowlisted write once its entry goes', () => {
    const planted = { path: 'src/modules/reactions/x.store.ts', text: "db.updateTable('tokens');" };
    const entry = { file: planted.path, table: 'tokens', why: 'planted' };
    const files = withFiles(planted);
    expect(checkTableOwners({ ...tree, files, allowlist: [...ALLOWED_FOREIGN_WRITES, entry] })).toEqual([]);
    const problems = checkTableOwners({ ...tree, files, allowlist: ALLOWED_FOREIGN_WRITES });
    expect(problems.map(({ kind, file, table, owner }) => `${kind} ${file} ${table} ${owner}`)).toEqual([
      'foreign src/modules/reactions/x.store.ts tokens tokens',
    ]);
  });

  it('reports a stale allowlist entry: one naming no write, and the entries of writes that went', () => {
    const gone = { path: 'src/modules/reactions/x.store.ts', text: '' };
    const allowlist = [
      ...ALLOWED_FOREIGN_WRITES,
      ...['tokens', 'users'].map((table) => ({ file: gone.path, table, why: 'planted' })),
      { file: 'src/modules/reactions/reactions.service.ts', table: 'users', why: 'planted' },
    ];
    const problems = checkTableOwners({ ...tree, files: withFiles(gone), allowlist });
    expect(problems.map(({ kind, file, table }) => ({ kind, file, table }))).toEqual([
      { kind: 'stale-allowance', file: gone.path, table: 'tokens' },
      { kind: 'stale-allowance', file: gone.path, table: 'users' },
      { kind: 'stale-allowance', file: 'src/modules/reactions/reactions.service.ts', table: 'users' },
    ]);
  });

  it('reports a table no owner holds, and a store file the map names that is not there', () => {
    const problems = checkTableOwners({
      ...tree,
      tables: [...tree.tables, 'reaction_archive'],
      owners: { reactions: { folder: 'src/modules/reactions', storeFiles: ['reactions.archive.ts'] } },
      tableOwners: { reaction_archive: 'nobody' },
      allowlist: [],
      files: [],
    });
    expect(problems.filter((problem) => problem.table === 'reaction_archive')).toEqual([
      expect.objectContaining({ kind: 'unowned', file: 'src/storage/schema.ts', table: 'reaction_archive', owner: null }),
    ]);
    expect(problems.filter((problem) => problem.kind === 'missing-store-file')).toEqual([
      expect.objectContaining({ file: 'src/modules/reactions/reactions.archive.ts', owner: 'reactions' }),
    ]);
    // Every table of the schema lacks an owner under this map.
    expect(problems.filter((problem) => problem.kind === 'unowned')).toHaveLength(tree.tables.length + 1);
  });
});
