import { AdjustableClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { AppError } from '../../http/errors.js';
import { openStorage, type Storage } from '../../storage/database.js';
import { migrateToLatest } from '../../storage/migrate.js';
import { createWebhookTargets } from '../webhooks/webhook-targets.js';
import { createClientsService, type ClientsService } from './clients.service.js';
import { checkServerKey, createSealer, loadServerKeyMaterial } from './server-key.js';

type Print = (line: string) => void;
type Env = Record<string, string | undefined>;

export const CLIENTS_USAGE = `  clients create --name NAME --redirect-uri URI [--redirect-uri URI ...] [--public] [--id-token-alg HS256|RS256]
                                     register an OAuth client; prints client_id and client_secret (shown once)
  clients list                       list OAuth clients (never their secrets)
  clients delete CLIENT_ID           delete a client and revoke its tokens`;

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
    return await work(createClientsService({ db: storage.db, clock: new AdjustableClock(), sealer, webhookTargets: createWebhookTargets(config.webhookAllowedHosts) }));
  } finally {
    await storage.close();
  }
}

/**
 * `parley clients create --name NAME --redirect-uri URI ...`: answers the process exit code
 * (0 done, 2 usage). `env` defaults to the process environment, read by config.ts.
 */
export async function createClientFromCli(args: string[], print: Print, env?: Env): Promise<number> {
  const name = optionsOf(args, 'name')[0];
  const redirectUris = optionsOf(args, 'redirect-uri');
  const alg = optionsOf(args, 'id-token-alg')[0];
  const isPublic = args.includes('--public');
  if (!name || redirectUris.length === 0 || (alg !== undefined && alg !== 'HS256' && alg !== 'RS256')) {
    print('clients create needs --name NAME and at least one --redirect-uri URI; --id-token-alg is HS256 or RS256.');
    return 2;
  }
  try {
    const { row, secret } = await withClients(env, (clients) =>
      clients.create({ name, redirectUris, public: isPublic, ...(alg === 'HS256' || alg === 'RS256' ? { idTokenSignedResponseAlg: alg } : {}) }),
    );
    print(`client_id      ${row.client_id}`);
    print(`client_secret  ${secret ?? '(none: public client, use PKCE)'}`);
    print(`id_token_alg   ${row.id_token_alg}`);
    print(`redirect_uris  ${redirectUris.join(' ')}`);
    if (secret !== null) print('Keep the secret now: it is not shown again.');
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      print(`clients create: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

/** `parley clients <create|list|delete>`, for the lead's src/cli/main.ts. */
export async function runClientsCommand(args: string[], print: Print, env?: Env): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'create') return createClientFromCli(rest, print, env);
  if (action === 'list') {
    const rows = await withClients(env, (clients) => clients.list());
    for (const row of rows) {
      const kind = row.bot_user_id !== null ? `bot ${row.bot_user_id}` : row.is_public === 1 ? 'public' : 'confidential';
      print(`${row.client_id}\t${row.name}\t${kind}\t${row.id_token_alg}\t${JSON.parse(row.redirect_uris).join(' ')}`);
    }
    return 0;
  }
  if (action === 'delete' && rest[0]) {
    const clientId = rest[0];
    try {
      await withClients(env, (clients) => clients.remove(clientId));
      print(`deleted ${clientId}`);
      return 0;
    } catch (error) {
      if (error instanceof AppError) {
        print(`no client has id ${clientId}`);
        return 1;
      }
      throw error;
    }
  }
  print(`Usage:\n${CLIENTS_USAGE}`);
  return 2;
}
