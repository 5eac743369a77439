// What an account's e-mail and password must be, wherever an account is made: the sign-up route
// and the operator's CLI check the same rules, so the CLI cannot create an account the API refuses.
import { z } from 'zod';

export const accountEmail = z.email().max(254);
export const accountPassword = z.string().min(10).max(200);
export const PASSWORD_RULE = 'at least 10 characters, at most 200';
