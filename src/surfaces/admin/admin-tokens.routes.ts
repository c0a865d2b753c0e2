import { answers, JSON_AND_FORM, SuccessAnswer } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentAdminToken, presentNewAdminToken } from '../../modules/tokens/admin-tokens.present.js';
import { AdminTokenNameTakenError, ENV_ADMIN_TOKEN_NAME, EnvironmentAdminTokenError, type TokensService } from '../../modules/tokens/tokens.service.js';
import { AppError, notFound } from '../../shared/errors.js';
import { AdminTokenList, AdminTokenParams, CreateAdminTokenBody, CreatedAdminToken } from './sessions.schemas.js';
import { networkAdmins } from './console-access.js';

const tag = { tags: ['admin tokens'] };

/**
 * Admin tokens (admin token), as `parley admin-token` manages them: listed without the tokens,
 * created (the token answered once), revoked. A revoked token is refused on this instance at once and
 * on the others as soon as the notice reaches them, within 2 s (ADMIN_TOKEN_CACHE_MS) in any case.
 * The token of PARLEY_ADMIN_TOKEN is listed but belongs to the environment: it is neither created nor
 * revoked here.
 */
export function registerAdminTokenRoutes(app: TypedApp, deps: { tokens: TokensService }): void {
  const { tokens } = deps;

  app.get(
    '/admin-tokens',
    {
      config: networkAdmins('admin tokens'),
      schema: {
        ...tag,
        summary: 'List admin tokens',
        description: `Lists every admin token in creation order, revoked ones included, never the tokens themselves. ${ENV_ADMIN_TOKEN_NAME} is listed with environment: true.`,
        response: answers(AdminTokenList),
      },
    },
    async () => ({ adminTokens: (await tokens.listAdminTokens()).map(presentAdminToken) }),
  );

  app.post(
    '/admin-tokens',
    {
      config: { ...networkAdmins('admin tokens'), audit: 'adminToken.create' },
      schema: {
        ...tag,
        summary: 'Create an admin token; the token is shown once',
        description: `Creates an admin token acting as the user admin-<name> and answers it with the token, which is never shown again. A name an active admin token holds is a 409; the name ${ENV_ADMIN_TOKEN_NAME} is kept for the environment's token (422).`,
        consumes: JSON_AND_FORM,
        body: CreateAdminTokenBody,
        response: answers(CreatedAdminToken, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const { name, expiresIn } = request.body;
      try {
        const created = await tokens.createAdminToken(name, expiresIn === undefined ? {} : { expiresInMs: expiresIn * 1000 });
        return { ...presentNewAdminToken(name, created), token: created.token };
      } catch (error) {
        if (error instanceof AdminTokenNameTakenError) throw new AppError('alreadyExists', error.message);
        if (error instanceof EnvironmentAdminTokenError) {
          throw new AppError('parameters', `name ${ENV_ADMIN_TOKEN_NAME} is kept for the token of that variable: pick another name.`, {
            detail: [{ field: 'body.name', message: `must not be ${ENV_ADMIN_TOKEN_NAME}` }],
          });
        }
        throw error;
      }
    },
  );

  app.delete(
    '/admin-tokens/:tokenId',
    {
      config: { ...networkAdmins('admin tokens'), audit: 'adminToken.revoke' },
      schema: {
        ...tag,
        summary: 'Revoke an admin token',
        description: `Revokes the admin token: refused at once here and on every instance within 2 s. An unknown or already revoked token is a 404; the token of ${ENV_ADMIN_TOKEN_NAME} is a 403 (unset the variable, or give it a new value, and restart every instance).`,
        params: AdminTokenParams,
        response: answers(SuccessAnswer),
      },
    },
    async (request) => {
      let revoked: number;
      try {
        revoked = await tokens.revokeAdminToken(request.params.tokenId);
      } catch (error) {
        if (error instanceof EnvironmentAdminTokenError) throw new AppError('forbidden', error.message);
        throw error;
      }
      if (revoked === 0) throw notFound('Admin token');
      return { status: 'success' as const };
    },
  );
}
