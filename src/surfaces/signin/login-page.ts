import { createHash } from 'node:crypto';
import { FAVICON_DATA_URL } from './favicon.js';

/**
 * The sign-in pages, rendered on the server: no script, one small inline style sheet (allowed by
 * its hash in the Content-Security-Policy), readable on a phone. Every value that comes from a
 * request or the database is escaped.
 */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:26rem;margin:0 auto;padding:2.5rem 1rem}
.card{background:#fff;border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin:0 0 .25rem}
p{margin:.5rem 0}
.muted{color:#4b5563;font-size:.95rem}
label{display:block;font-weight:600;margin:1rem 0 .3rem}
input[type=text],input[type=password]{width:100%;font-size:1rem;padding:.7rem .75rem;border:1px solid #9ca3af;border-radius:.5rem}
input:focus{outline:3px solid #93c5fd;border-color:#2563eb}
button{width:100%;margin-top:1.25rem;font-size:1rem;font-weight:600;padding:.8rem;border:0;border-radius:.5rem;background:#1d4ed8;color:#fff;cursor:pointer}
button.secondary{background:#e5e7eb;color:#111827}
.error{background:#fef2f2;border:1px solid #fca5a5;color:#991b1b;border-radius:.5rem;padding:.75rem;margin:1rem 0 0}
.notice{background:#eff6ff;border:1px solid #93c5fd;color:#1e3a8a;border-radius:.5rem;padding:.75rem;margin:1rem 0 0}
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Headers of every sign-in page: no caching, no framing (clickjacking), no outside resources. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // No form-action: after sign-in the browser follows a redirect to the client's redirect_uri.
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'`,
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A page of the sign-in service: the style sheet its Content-Security-Policy allows, and the body in a card. */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/svg+xml" href="${FAVICON_DATA_URL}">
<style>${STYLE}</style>
</head>
<body><main><div class="card">
${body}
</div></main></body>
</html>
`;
}

export const errorBlock = (error: string | null): string => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '');
const noticeBlock = (notice: string | null): string => (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : '');

export interface LoginPageInput {
  action: string;
  csrf: string;
  /** The authorization request to continue after sign-in, as a query string; null for a plain sign-in. */
  authorize: string | null;
  clientName: string | null;
  username: string;
  error: string | null;
  notice?: string | null;
}

export function renderLoginPage(input: LoginPageInput): string {
  const subtitle = input.clientName ? `to continue to <strong>${escapeHtml(input.clientName)}</strong>` : 'to your account';
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
<p class="muted">${subtitle}</p>
${errorBlock(input.error)}${noticeBlock(input.notice ?? null)}
<form method="post" action="${escapeHtml(input.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
${input.authorize !== null ? `<input type="hidden" name="authorize" value="${escapeHtml(input.authorize)}">` : ''}
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${escapeHtml(input.username)}" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function renderSignedInPage(input: { username: string; logoutAction: string; csrf: string }): string {
  return layout(
    'Signed in',
    `<h1>You are signed in</h1>
<p>Signed in as <strong>${escapeHtml(input.username)}</strong>.</p>
<form method="post" action="${escapeHtml(input.logoutAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<button type="submit" class="secondary">Sign out</button>
</form>`,
  );
}

export interface LogoutPageInput {
  /** Who is signed in; null once signed out (the signed-out page). */
  username: string | null;
  logoutAction: string;
  csrf: string;
  done: boolean;
  /** The client whose logout request this page confirms, when it named one. */
  clientName?: string | null;
  /** The logout request's parameters, posted again with the confirmation. */
  carried?: ReadonlyArray<readonly [string, string]>;
}

export function renderLogoutPage(input: LogoutPageInput): string {
  if (input.done || input.username === null) {
    return layout('Signed out', '<h1>You are signed out</h1>\n<p class="muted">You can close this page.</p>');
  }
  const asking = input.clientName ? `<p class="muted"><strong>${escapeHtml(input.clientName)}</strong> asks to sign you out.</p>\n` : '';
  const carried = (input.carried ?? []).map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">\n`).join('');
  return layout(
    'Sign out',
    `<h1>Sign out?</h1>
<p>Signed in as <strong>${escapeHtml(input.username)}</strong>.</p>
${asking}<form method="post" action="${escapeHtml(input.logoutAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
${carried}<button type="submit">Sign out</button>
</form>`,
  );
}

export function renderErrorPage(input: { title: string; message: string; code?: string }): string {
  return layout(
    input.title,
    `<h1>${escapeHtml(input.title)}</h1>
${errorBlock(input.message)}
${input.code ? `<p class="muted">Error: ${escapeHtml(input.code)}</p>` : ''}
<p class="muted">Go back to the application you came from and try again. If this keeps happening, tell its operator.</p>`,
  );
}
