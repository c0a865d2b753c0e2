/**
 * One owner per table, checked: every write in src/ (Kysely insertInto / updateTable / deleteFrom /
 * replaceInto / mergeInto, and SQL text with INSERT INTO, UPDATE ... SET, DELETE FROM or REPLACE INTO) must
 * come from a store file of the table's owner, as src/storage/ownership.ts declares it. A store file is a
 * `*.store.ts` file of the owner's folder or one the owner names in `storeFiles`. Migrations are exempt.
 *
 * Also fails on a table no owner holds, on a write whose table is named at run time (the check cannot
 * see it), on a store file named in the map that does not exist, and on an allowlist entry that matches
 * no write, so the allowlist below only shrinks.
 *
 * Run: npm run owners (in .ci/run). Exit 1 with one line per problem.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { OWNERS, type OwnerName, TABLE_OWNERS, type TableOwner } from '../src/storage/ownership.js';

/** A source file, its path from the repository root with forward slashes. */
export interface SourceText {
  path: string;
  text: string;
}

/** A write found in a source file; `table` is null when the table is named at run time. */
export interface TableWrite {
  file: string;
  line: number;
  table: string | null;
}

/** A foreign write tolerated for now: the file, the table, and why it is still there. */
export interface AllowedWrite {
  file: string;
  table: string;
  why: string;
}

export type ProblemKind = 'foreign' | 'outside-store' | 'unowned' | 'dynamic' | 'stale-allowance' | 'missing-store-file';

export interface Problem {
  kind: ProblemKind;
  file: string;
  line: number;
  table: string | null;
  owner: OwnerName | null;
  message: string;
}

/**
 * Foreign writes tolerated, each with why: none. An entry must match a write (a stale one fails the
 * check); a write no entry names fails.
 */
export const ALLOWED_FOREIGN_WRITES: readonly AllowedWrite[] = [];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCHEMA_FILE = 'src/storage/schema.ts';
/** Migrations create and reshape every table; they belong to no module. */
const EXEMPT = /^src\/storage\/migrations\//;

const WRITE_METHODS = new Set(['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);
/** Where a template literal's substitution stood: a table name containing it is named at run time. */
const HOLE = '\u0000';
/** INSERT [OR x] INTO t, REPLACE INTO t, DELETE FROM t, UPDATE [OR x] [ONLY] t; the table may be missing (text ends). */
const SQL_WRITE = /\b(?:(?:insert|replace)(?:\s+or\s+[a-z]+)?\s+into|delete\s+from|(update)(?:\s+or\s+[a-z]+)?(?:\s+only)?)(?:\s+([^\s(,;]+)|\s*$)/gi;
/** What follows an UPDATE's table in SQL, as opposed to prose: an optional alias, then SET. */
const UPDATE_TAIL = /^\s+(?:as\s+)?(?:[a-z_][a-z0-9_]*\s+)?set\b/i;

function lineOf(source: ts.SourceFile, position: number): number {
  return source.getLineAndCharacterOfPosition(position).line + 1;
}

/** The table a Kysely write names: `'users'` or `'users as u'`; null when it is not a literal. */
function tablesOfArgument(argument: ts.Expression | undefined): Array<string | null> {
  if (argument === undefined) return [null];
  if (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)) return [argument.text.trim().split(/\s+/)[0] ?? null];
  if (ts.isArrayLiteralExpression(argument)) return argument.elements.flatMap((element) => tablesOfArgument(element));
  return [null];
}

/** The writes SQL text makes, at their offsets in the text; the text's substitutions are HOLE. */
function sqlWrites(text: string, knownTables: ReadonlySet<string>): Array<{ offset: number; table: string | null }> {
  const found: Array<{ offset: number; table: string | null }> = [];
  for (const match of text.matchAll(SQL_WRITE)) {
    const [whole, update, rawName] = match;
    const name = rawName?.replace(/^["`[]|["`\]]$/g, '');
    if (update !== undefined && (name === undefined || !UPDATE_TAIL.test(text.slice(match.index + whole.length)))) continue;
    if (name === undefined || name.includes(HOLE)) {
      found.push({ offset: match.index, table: null });
      continue;
    }
    // Prose ("delete from the list") names no table; a table of the schema is what SQL would write.
    if (knownTables.has(name.toLowerCase())) found.push({ offset: match.index, table: name.toLowerCase() });
  }
  return found;
}

/** Every write of one file: Kysely write calls and SQL text in string and template literals. */
export function findWrites(file: SourceText, knownTables: ReadonlySet<string>): TableWrite[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const writes: TableWrite[] = [];
  const addSql = (node: ts.Node, text: string) => {
    for (const { offset, table } of sqlWrites(text, knownTables)) {
      const newlines = text.slice(0, offset).split('\n').length - 1;
      writes.push({ file: file.path, line: lineOf(source, node.getStart(source)) + newlines, table });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : undefined;
      if (name !== undefined && WRITE_METHODS.has(name)) {
        const at = lineOf(source, (node.arguments[0] ?? node).getStart(source));
        for (const table of tablesOfArgument(node.arguments[0])) writes.push({ file: file.path, line: at, table });
      }
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      addSql(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      addSql(node, node.head.text + node.templateSpans.map((span) => HOLE + span.literal.text).join(''));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return writes;
}

function isStoreFile(owner: TableOwner, file: string): boolean {
  if (!file.startsWith(`${owner.folder}/`)) return false;
  const inFolder = file.slice(owner.folder.length + 1);
  return inFolder.endsWith('.store.ts') || (owner.storeFiles ?? []).includes(inFolder);
}

export interface CheckInput {
  files: readonly SourceText[];
  /** The tables of the schema (the `Database` interface). */
  tables: readonly string[];
  owners?: Readonly<Record<string, TableOwner>>;
  tableOwners?: Readonly<Record<string, string>>;
  allowlist?: readonly AllowedWrite[];
  /** Where the schema is, for problems about a table rather than a write. */
  schemaFile?: string;
}

/** The problems of a tree: an empty list means every write comes from its table's owner. */
export function checkTableOwners(input: CheckInput): Problem[] {
  const owners: Readonly<Record<string, TableOwner>> = input.owners ?? OWNERS;
  const tableOwners: Readonly<Record<string, string>> = input.tableOwners ?? TABLE_OWNERS;
  const allowlist = input.allowlist ?? ALLOWED_FOREIGN_WRITES;
  const schemaFile = input.schemaFile ?? SCHEMA_FILE;
  const known = new Set(input.tables);
  const problems: Problem[] = [];
  const ownerOf = (table: string): OwnerName | null => {
    const name = tableOwners[table];
    return name !== undefined && name in owners ? (name as OwnerName) : null;
  };

  for (const table of input.tables) {
    if (ownerOf(table) === null) problems.push({ kind: 'unowned', file: schemaFile, line: 1, table, owner: null, message: 'no owner holds this table' });
  }
  for (const table of Object.keys(tableOwners)) {
    if (!known.has(table)) problems.push({ kind: 'unowned', file: schemaFile, line: 1, table, owner: null, message: 'owned, but not a table of the schema' });
  }
  const paths = new Set(input.files.map((file) => file.path));
  for (const [name, owner] of Object.entries(owners)) {
    for (const storeFile of owner.storeFiles ?? []) {
      const full = `${owner.folder}/${storeFile}`;
      if (paths.has(full)) continue;
      problems.push({ kind: 'missing-store-file', file: full, line: 1, table: null, owner: name as OwnerName, message: 'named as a store file, not found' });
    }
  }

  const used = new Set<AllowedWrite>();
  for (const file of input.files) {
    for (const write of findWrites(file, known)) {
      if (write.table === null) {
        problems.push({ ...write, kind: 'dynamic', owner: null, message: 'the table is named at run time: write it as a literal so its owner can be checked' });
        continue;
      }
      const ownerName = ownerOf(write.table);
      const owner = ownerName === null ? undefined : owners[ownerName];
      if (ownerName === null || owner === undefined) {
        problems.push({ ...write, kind: 'unowned', owner: null, message: 'no owner holds this table' });
        continue;
      }
      if (isStoreFile(owner, write.file)) continue;
      const allowance = allowlist.find((entry) => entry.file === write.file && entry.table === write.table);
      if (allowance !== undefined) {
        used.add(allowance);
        continue;
      }
      const inFolder = write.file.startsWith(`${owner.folder}/`);
      problems.push({
        ...write,
        kind: inFolder ? 'outside-store' : 'foreign',
        owner: ownerName,
        message: inFolder
          ? `written outside ${ownerName}'s store files: move it into a *.store.ts file`
          : `owned by ${ownerName} (${owner.folder}): call its service instead`,
      });
    }
  }
  for (const entry of allowlist) {
    if (!used.has(entry)) {
      problems.push({
        kind: 'stale-allowance',
        file: entry.file,
        line: 1,
        table: entry.table,
        owner: ownerOf(entry.table),
        message: 'allowlisted, but the file no longer writes this table from outside its owner: remove the entry',
      });
    }
  }
  return problems;
}

/** The table names of the schema's `Database` interface. */
export function tablesOfSchema(schemaText: string): string[] {
  const source = ts.createSourceFile(SCHEMA_FILE, schemaText, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const database = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === 'Database',
  );
  if (database === undefined) throw new Error(`${SCHEMA_FILE} declares no Database interface`);
  return database.members.flatMap((member) => (ts.isPropertySignature(member) && ts.isIdentifier(member.name) ? [member.name.text] : []));
}

/** The TypeScript sources of src/ (migrations left out) and the schema's tables, read from a checkout. */
export function readTree(root: string = ROOT): { files: SourceText[]; tables: string[] } {
  const files: SourceText[] = [];
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && child.endsWith('.ts') && !child.endsWith('.d.ts') && !EXEMPT.test(child)) {
        files.push({ path: child, text: fs.readFileSync(path.join(root, child), 'utf8') });
      }
    }
  };
  walk('src');
  files.sort((a, b) => a.path.localeCompare(b.path));
  return { files, tables: tablesOfSchema(fs.readFileSync(path.join(root, SCHEMA_FILE), 'utf8')) };
}

export function formatProblem(problem: Problem): string {
  const table = problem.table ?? '(run-time name)';
  const owner = problem.owner === null ? '' : `, owner ${problem.owner}`;
  return `${problem.file}:${problem.line}  ${table}${owner}  [${problem.kind}] ${problem.message}`;
}

function main(): void {
  const problems = checkTableOwners(readTree());
  if (problems.length === 0) {
    console.log(`owners: every table write comes from its owner's store (${ALLOWED_FOREIGN_WRITES.length} allowlisted)`);
    return;
  }
  for (const problem of problems) console.error(formatProblem(problem));
  console.error(`owners: ${problems.length} problem(s); see src/storage/ownership.ts and scripts/check-table-owners.ts`);
  process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
