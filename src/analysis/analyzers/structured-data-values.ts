// The value formats Google's rich-result guides ask for: prices as plain numbers, ISO 8601 dates,
// absolute URLs and ISO 4217 currency codes. Pure: a property and its value in, the problem out.

const PRICE_PROPS = new Set(['price', 'lowPrice', 'highPrice']);
const DATE_PROPS = new Set(['datePublished', 'dateModified', 'dateCreated', 'uploadDate', 'startDate', 'endDate', 'priceValidUntil', 'validFrom', 'validThrough', 'expires']);
const URL_PROPS = new Set(['url', 'image', 'logo', 'thumbnailUrl', 'contentUrl', 'embedUrl', 'sameAs', 'target', 'item']);
const CURRENCY_PROPS = new Set(['priceCurrency', 'currency']);

const NUMBER_LIKE = /^\d+(\.\d+)?$/;
const ISO_8601 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;
const ABSOLUTE_URL = /^https?:\/\/[^\s/?#]+/i;
const CURRENCY_CODE = /^[A-Z]{3}$/;

/** What is wrong with a property's value and what it should be, or null when it is fine (or not judged). */
export function valueProblem(property: string, value: string | number | boolean | bigint | symbol | undefined): { detail: string; expected: string } | null {
  if (PRICE_PROPS.has(property)) {
    const ok = typeof value === 'number' ? Number.isFinite(value) && value >= 0 : typeof value === 'string' && NUMBER_LIKE.test(value.trim());
    return ok ? null : { detail: 'a price must be a number, with "." for decimals and no currency symbol or thousands separator', expected: 'a plain number such as 19.99' };
  }
  if (DATE_PROPS.has(property)) {
    return typeof value === 'string' && ISO_8601.test(value.trim()) ? null : { detail: 'not an ISO 8601 date', expected: 'an ISO 8601 date or date-time such as 2024-05-01 or 2024-05-01T09:30:00+02:00' };
  }
  if (URL_PROPS.has(property)) {
    return typeof value === 'string' && ABSOLUTE_URL.test(value.trim()) ? null : { detail: 'not an absolute URL', expected: 'an absolute URL starting with https://' };
  }
  if (CURRENCY_PROPS.has(property)) {
    return typeof value === 'string' && CURRENCY_CODE.test(value.trim()) ? null : { detail: 'not an ISO 4217 currency code', expected: 'a three-letter ISO 4217 code such as USD or EUR' };
  }
  return null;
}
