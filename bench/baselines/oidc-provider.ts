import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';

/**
 * The comparison for Parley's token endpoint: panva's oidc-provider (the reference Node.js OpenID
 * Provider), in-memory adapter, one client_credentials client. Its tokens live in process memory;
 * Parley's are written to the database.
 */
const clientId = process.env.BENCH_CLIENT_ID ?? 'bench-bot';
const clientSecret = process.env.BENCH_CLIENT_SECRET ?? 'bench-secret-bench-secret-bench-secret-123';

const provider = new Provider('http://127.0.0.1', {
  clients: [{ client_id: clientId, client_secret: clientSecret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'bot' }],
  scopes: ['bot'],
  features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
  // Given explicitly only to keep its start-up warnings out of the benchmark output.
  cookies: { keys: ['bench-cookie-key-not-a-secret'] },
  jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' }] },
});

const server = http.createServer(provider.callback());
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
