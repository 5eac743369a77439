// The verification mail of a sign-up, the same from the API and the dashboard's form. Its link
// opens the dashboard's landing page (verify-routes.ts); a script can give the same token to the
// API's GET /api/v1/accounts/verify, which answers JSON, so the mail names that too.
import type { Mail } from '../accounts/mailer.ts';
import { VERIFY_PATH } from './pages.ts';

export function verificationMail(publicBaseUrl: string, email: string, token: string): Mail {
  const query = `token=${encodeURIComponent(token)}`;
  return {
    to: email,
    subject: 'Verify your e-mail for the tool service',
    text:
      `Open this link to verify your e-mail address:\n\n${publicBaseUrl}${VERIFY_PATH}?${query}\n\nThe link is valid for 48 hours.\n\n` +
      `Verifying from a script? The API takes the same token and answers JSON:\n${publicBaseUrl}/api/v1/accounts/verify?${query}\n`,
  };
}
