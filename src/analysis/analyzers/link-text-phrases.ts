// Link texts that say nothing about where a link goes, per language: Lighthouse 13's list
// (core/audits/seo/link-text.js), so our link-text audit fails exactly where its does. Lower case,
// compared with the whole trimmed text of a link.
export const GENERIC_LINK_TEXTS: Readonly<Record<string, ReadonlySet<string>>> = {
  en: new Set(['click here', 'click this', 'go', 'here', 'information', 'learn more', 'more', 'more info', 'more information', 'right here', 'read more', 'see more', 'start', 'this']),
  ja: new Set(['ここをクリック', 'こちらをクリック', 'リンク', '続きを読む', '続く', '全文表示']),
  es: new Set([
    'click aquí', 'click aqui', 'clicka aquí', 'clicka aqui', 'pincha aquí', 'pincha aqui', 'aquí', 'aqui', 'más', 'mas', 'más información',
    'más informacion', 'mas información', 'mas informacion', 'este', 'enlace', 'este enlace', 'empezar',
  ]),
  pt: new Set(['clique aqui', 'ir', 'mais informação', 'mais informações', 'mais', 'veja mais']),
  ko: new Set(['여기', '여기를 클릭', '클릭', '링크', '자세히', '자세히 보기', '계속', '이동', '전체 보기']),
  sv: new Set(['här', 'klicka här', 'läs mer', 'mer', 'mer info', 'mer information']),
  de: new Set(['klicke hier', 'hier klicken', 'hier', 'mehr', 'siehe', 'dies', 'das', 'weiterlesen']),
  ta: new Set([
    'அடுத்த பக்கம்', 'மறுபக்கம்', 'முந்தைய பக்கம்', 'முன்பக்கம்', 'மேலும் அறிக', 'மேலும் தகவலுக்கு', 'மேலும் தரவுகளுக்கு',
    'தயவுசெய்து இங்கே அழுத்தவும்', 'இங்கே கிளிக் செய்யவும்',
  ]),
  fa: new Set(['اطلاعات بیشتر', 'اطلاعات', 'این', 'اینجا بزنید', 'اینجا کلیک کنید', 'اینجا', 'برو', 'بیشتر بخوانید', 'بیشتر بدانید', 'بیشتر', 'شروع']),
};

// Punctuation and symbols around the words ("Read more »", "More…", "→ here") do not make a link
// text say more; Lighthouse compares the raw text and so passes them, which is its gap, not a rule.
const EDGES = /^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu;

/** The text as compared with the lists: whitespace collapsed, lower case, without surrounding punctuation. */
export function normaliseLinkText(text: string): string {
  return text.replace(/\s+/g, ' ').replace(EDGES, '').toLowerCase();
}

/**
 * Whether a link text is generic. With the language of the text known (its primary subtag), only
 * that language's list counts, and a language without a list counts nothing ("mas" is Spanish for
 * "more", and an English acronym); unknown, every list counts. Both as Lighthouse reads them.
 */
export function isGenericLinkText(text: string, lang: string | null): boolean {
  const term = normaliseLinkText(text);
  if (term === '') return false;
  if (lang !== null) return GENERIC_LINK_TEXTS[primaryLanguage(lang)]?.has(term) ?? false;
  return Object.values(GENERIC_LINK_TEXTS).some((list) => list.has(term));
}

/** "en-GB" -> "en"; case-insensitive, where Lighthouse's lookup misses "EN". */
export function primaryLanguage(lang: string): string {
  return (lang.trim().split(/[-_]/)[0] ?? '').toLowerCase();
}
