import { buildApp } from './app.js';
import { OperatorError } from './cli/errors.js';
import { formatFailure } from './cli/failure.js';
import { type Config, loadConfig } from './config.js';
import type { TypedApp } from './http/typed-app.js';
import { CONSOLE_PATH } from './modules/identity/console-client.js';
import { createNetworkAdmins } from './modules/identity/network-admins.js';

/** The listen error of a taken, forbidden or foreign address, said with what to change. */
function describeListenFailure(error: unknown, config: Config): unknown {
  const code = (error as { code?: unknown }).code;
  const { port, host } = config;
  if (code === 'EADDRINUSE') return new OperatorError(`port ${port} on ${host} is in use (another Parley?): stop it or set PORT`);
  if (code === 'EACCES') return new OperatorError(`port ${port} on ${host} needs privileges this user does not have: set PORT to 1024 or above`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new OperatorError(`HOST ${host} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0 for all`);
  return error;
}

/** Listens, or closes the app (its database and background work) and explains why it could not. */
async function listen(app: TypedApp, config: Config): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => undefined);
    throw describeListenFailure(error, config);
  }
}

/** The first run's next step, while no one can sign in to the console: how to make a network admin. */
const NO_NETWORK_ADMIN_HINT = 'No network admin yet: run `npm run parley -- users create-admin --username admin`, then sign in to the console';

function banner(config: Config, address: string, hasNetworkAdmin: boolean): string {
  const base = config.publicUrl.startsWith(`http://${config.host}:${config.port}`) ? address : config.publicUrl;
  const database = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `SQLite in ${config.dataDir}`;
  return [
    `Parley is serving on ${address} (${database})`,
    `  admin API      ${base}/api/v2`,
    `  client API     ${base}/client/v1 (stream: ${base.replace(/^http/, 'ws')}/client/v1/stream)`,
    `  bot API        ${base}/bot/v1`,
    `  sign-in        ${config.oidcIssuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    `  tray           ${base}/notifications/history${config.trayEnabled ? '' : ' (off: set PARLEY_TRAY_ENABLED=1)'}`,
    `  console        ${base}${CONSOLE_PATH}`,
    `  API reference  ${base}/docs`,
    `  health         ${base}/healthz, readiness ${base}/readyz, metrics ${base}/metrics`,
    config.adminToken
      ? '  admin token    PARLEY_ADMIN_TOKEN is accepted (only while the variable is set)'
      : '  admin token    PARLEY_ADMIN_TOKEN is not set; named tokens: `npm run parley -- admin-token create --name me`',
    ...(hasNetworkAdmin ? [] : [`${NO_NETWORK_ADMIN_HINT} at ${base}${CONSOLE_PATH}`]),
    '',
  ].join('\n');
}

/** Start-up: config -> app -> listen, and a graceful stop on SIGTERM / SIGINT. */
export async function serve(config: Config): Promise<void> {
  const { app, storage, clock } = await buildApp(config);
  const hasNetworkAdmin = await createNetworkAdmins({ db: storage.db, clock }).exists();
  const address = await listen(app, config);
  process.stdout.write(banner(config, address, hasNetworkAdmin));

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: finishing in-flight requests');
    // Stops accepting, lets in-flight requests finish, then the onClose hooks close the database.
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  // loadConfig runs inside, so a bad variable is reported like any other failure to start.
  Promise.resolve()
    .then(() => serve(loadConfig()))
    .catch((error: unknown) => {
      process.stderr.write(formatFailure(error));
      process.exit(1);
    });
}
