import { OperatorError, UsageError } from '../../cli/errors.js';
import { AdjustableClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { AppError } from '../../shared/errors.js';
import { openStorage, type Storage } from '../../storage/database.js';
import { migrateToLatest } from '../../storage/migrate.js';
import { createWebhookTargets } from '../webhooks/webhook-targets.js';
import { createClientsService, type ClientsService } from './clients.service.js';
import { checkServerKey, createSealer, loadServerKeyMaterial } from './server-key.js';

type Print = (line: string) => void;
type Env = Record<string, string | undefined>;

/** The `clients` commands, one line each, for `parley help`. */
export const CLIENTS_COMMANDS = [
  { usage: 'clients create --name NAME --redirect-uri URI', summary: 'register an OAuth client; prints its id and secret (the secret is shown once)' },
  { usage: 'clients list', summary: 'list OAuth clients (never their secrets)' },
  { usage: 'clients delete CLIENT_ID', summary: 'delete an OAuth client and revoke its tokens' },
] as const;

/** The options of `clients create` beyond its synopsis. */
export const CLIENTS_CREATE_OPTIONS =
  '--redirect-uri may repeat; --post-logout-redirect-uri URI (may repeat): where /logout may send the browser back; --public: no secret (the app uses PKCE); --id-token-alg HS256|RS256';

function optionsOf(args: string[], name: string): string[] {
  const values: string[] = [];
  args.forEach((arg, index) => {
    if (arg === `--${name}` && args[index + 1] !== undefined) values.push(args[index + 1] as string);
    else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
  });
  return values;
}

/** Opens the server's database with its server key, as `parley serve` would with the same environment. */
async function withClients<T>(env: Env | undefined, work: (clients: ClientsService) => Promise<T>): Promise<T> {
  const config = env === undefined ? loadConfig() : loadConfig(env);
  const storage: Storage = openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await migrateToLatest(storage.db);
    const sealer = createSealer(loadServerKeyMaterial({ secretKey: config.secretKey, dataDir: config.dataDir }));
    await checkServerKey(storage.db, sealer);
    return await work(
      createClientsService({ db: storage.db, clock: new AdjustableClock(), sealer, webhookTargets: createWebhookTargets(config.webhookAllowedHosts) }),
    );
  } finally {
    await storage.close();
  }
}

/** The service's refusal, in the words of the command line (its options, not the API's fields). */
function usageErrorOf(error: AppError): UsageError {
  const reason = error.message
    .replace(/postLogoutRedirectUris(\[\d+\])?/g, '--post-logout-redirect-uri')
    .replace(/redirectUris(\[\d+\])?/g, '--redirect-uri')
    .replace(/\.$/, '');
  return new UsageError(`clients create refused: ${reason}; fix the options (see parley help)`);
}

async function createClient(args: string[], print: Print, env: Env | undefined): Promise<void> {
  const name = optionsOf(args, 'name')[0];
  const redirectUris = optionsOf(args, 'redirect-uri');
  const postLogoutRedirectUris = optionsOf(args, 'post-logout-redirect-uri');
  const alg = optionsOf(args, 'id-token-alg')[0];
  if (!name || redirectUris.length === 0 || (alg !== undefined && alg !== 'HS256' && alg !== 'RS256')) {
    throw new UsageError('clients create needs --name NAME and at least one --redirect-uri URI; --id-token-alg is HS256 or RS256');
  }
  const isPublic = args.includes('--public');
  const create = (clients: ClientsService) =>
    clients.create({
      name,
      redirectUris,
      postLogoutRedirectUris,
      public: isPublic,
      ...(alg === 'HS256' || alg === 'RS256' ? { idTokenSignedResponseAlg: alg } : {}),
    });
  const { row, secret } = await withClients(env, create).catch((error: unknown) => {
    throw error instanceof AppError ? usageErrorOf(error) : error;
  });
  print(`client_id      ${row.client_id}`);
  print(`client_secret  ${secret ?? '(none: public client, use PKCE)'}`);
  print(`id_token_alg   ${row.id_token_alg}`);
  print(`redirect_uris  ${redirectUris.join(' ')}`);
  if (postLogoutRedirectUris.length > 0) print(`post_logout_redirect_uris  ${postLogoutRedirectUris.join(' ')}`);
  if (secret !== null) print('Keep the secret now: it is not shown again.');
}

/**
 * `parley clients create ...` answering an exit code (0 done, 2 wrong options) instead of throwing,
 * with the refusal printed through `print`. `env` defaults to the process environment.
 */
export async function createClientFromCli(args: string[], print: Print, env?: Env): Promise<number> {
  try {
    await createClient(args, print, env);
    return 0;
  } catch (error) {
    if (!(error instanceof OperatorError)) throw error;
    print(error.message);
    return error.exitCode;
  }
}

async function listClients(print: Print, env: Env | undefined): Promise<void> {
  const rows = await withClients(env, (clients) => clients.list());
  for (const row of rows) {
    const kind = row.bot_user_id !== null ? `bot ${row.bot_user_id}` : row.is_public === 1 ? 'public' : 'confidential';
    print(`${row.client_id}\t${row.name}\t${kind}\t${row.id_token_alg}\t${JSON.parse(row.redirect_uris).join(' ')}`);
  }
}

async function deleteClient(clientId: string, print: Print, env: Env | undefined): Promise<void> {
  await withClients(env, (clients) => clients.remove(clientId)).catch((error: unknown) => {
    if (!(error instanceof AppError)) throw error;
    if (error.kind === 'notFound') throw new OperatorError(`no client has id ${clientId}: \`parley clients list\` shows the ids`);
    // A client the command refuses to delete (the console's): exit 2, with the service's reason.
    throw new OperatorError(error.message.replace(/\.$/, ''), 2);
  });
  print(`deleted ${clientId}`);
}

/**
 * `parley clients <create|list|delete>`. Prints results through `print`; a failure is thrown as an
 * OperatorError (UsageError for a wrong command line) for the caller to report.
 */
export async function runClientsCommand(args: string[], print: Print, env?: Env): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'create') return createClient(rest, print, env);
  if (action === 'list') return listClients(print, env);
  if (action === 'delete') {
    if (!rest[0]) throw new UsageError('clients delete needs the client id: `parley clients list` shows them');
    return deleteClient(rest[0], print, env);
  }
  throw new UsageError(
    action === undefined ? 'clients needs an action: create, list or delete' : `unknown clients action '${action}': use create, list or delete`,
  );
}
