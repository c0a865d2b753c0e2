import { buildApp } from './app.js';
import { ConfigError, type Config, loadConfig } from './config.js';

/** Start-up: config -> app -> listen, and a graceful stop on SIGTERM / SIGINT. */
export async function serve(config: Config): Promise<void> {
  const { app } = await buildApp(config);
  const address = await app.listen({ port: config.port, host: config.host });
  const base = config.publicUrl.startsWith(`http://${config.host}:${config.port}`) ? address : config.publicUrl;
  const database = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `SQLite in ${config.dataDir}`;
  process.stdout.write(
    [
      `Parley is serving on ${address} (${database})`,
      `  admin API      ${base}/api/v2`,
      `  client API     ${base}/client/v1 (stream: ${base.replace(/^http/, 'ws')}/client/v1/stream)`,
      `  bot API        ${base}/bot/v1`,
      `  sign-in        ${config.oidcIssuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
      `  tray           ${base}/notifications/history${config.trayEnabled ? '' : ' (off: set PARLEY_TRAY_ENABLED=1)'}`,
      `  API reference  ${base}/docs`,
      `  health         ${base}/healthz, metrics ${base}/metrics`,
      config.adminToken ? '  admin token    PARLEY_ADMIN_TOKEN is accepted' : '  admin token    none yet: `npm run parley -- admin-token create --name me`',
      '',
    ].join('\n'),
  );

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

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Parley cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  await serve(config);
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  main().catch((error: unknown) => {
    process.stderr.write(`Parley failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
