import { Type } from '@sinclair/typebox';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { PasswordResets } from '../../modules/identity/password-resets.js';
import { IsoTime } from '../../shared/schemas.js';
import { iso } from '../../shared/values.js';
import { networkAdmins } from './console-access.js';
import { UserIdParams } from './identity.schemas.js';

const PasswordResetLink = Type.Object(
  {
    url: Type.String({ description: 'The link to hand to the person: the reset page with the token, shown only here' }),
    expiresAt: IsoTime('When the link stops working (30 minutes after it was made)'),
  },
  {
    description: 'A one-time password-reset link',
    examples: [{ url: 'https://chat.example.com/reset-password?token=3q2-7wAAAAHq0kLmN5gTz4vXbYc1sRiUoPe9dWfAhJk', expiresAt: '2025-03-14T10:00:00.000Z' }],
  },
);

/** Password-reset links (network admins): Parley sends no email, so an admin hands the link over. */
export function registerPasswordResetRoutes(app: TypedApp, deps: { passwordResets: PasswordResets; publicUrl: string }): void {
  const base = deps.publicUrl.replace(/\/+$/, '');

  app.post(
    '/users/:userId/password-reset',
    {
      config: { ...networkAdmins('password-reset links'), audit: 'user.passwordResetLink' },
      schema: {
        tags: ['users'],
        summary: 'Make a one-time password-reset link',
        description:
          "Answers a link to the sign-in service's reset page, valid 30 minutes and once; a later link for the same user replaces it. Setting the password there signs the user out everywhere (sessions, grants, access tokens), as a password change does. The token is stored only as its SHA-256 and never shown again. An unknown user is a 404; a bot, or a user without a username, a 409.",
        params: UserIdParams,
        response: answers(PasswordResetLink, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const { token, expiresAt } = await deps.passwordResets.issue(request.params.userId);
      return { url: `${base}/reset-password?token=${encodeURIComponent(token)}`, expiresAt: iso(expiresAt) };
    },
  );
}
