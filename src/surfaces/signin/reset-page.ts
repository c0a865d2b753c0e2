import { MIN_PASSWORD_LENGTH } from '../../modules/identity/network-admins.js';
import { MAX_PASSWORD_LENGTH } from '../../modules/identity/password-resets.js';
import { errorBlock, escapeHtml, layout } from './login-page.js';

/** The password-reset pages: the form a link opens, the page once the password is set. No script, as every sign-in page. */

export interface ResetPageInput {
  action: string;
  csrf: string;
  token: string;
  error: string | null;
}

export function renderResetPage(input: ResetPageInput): string {
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1>
<p class="muted">At least ${MIN_PASSWORD_LENGTH} characters. Setting it signs you out everywhere.</p>
${errorBlock(input.error)}
<form method="post" action="${escapeHtml(input.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<input type="hidden" name="token" value="${escapeHtml(input.token)}">
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required autofocus>
<label for="confirmation">New password again</label>
<input type="password" id="confirmation" name="confirmation" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required>
<button type="submit">Set password</button>
</form>`,
  );
}

export function renderResetDonePage(input: { loginAction: string }): string {
  return layout(
    'Password set',
    `<h1>Your password is set</h1>
<p>Sign in with your new password. Every earlier sign-in has ended.</p>
<p><a href="${escapeHtml(input.loginAction)}">Go to sign-in</a></p>`,
  );
}

/** The one answer to a link that does not work: unknown, replaced, used or expired alike. */
export const RESET_LINK_REFUSED = {
  title: 'This link does not work',
  message: 'This password-reset link is not valid: it may have expired or been used. Ask your administrator for a new one.',
};
