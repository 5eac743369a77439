// The rich-result types the structured-data analyzer knows: each type's required and recommended
// properties, the subtypes judged by a parent's guide, and the types Google implies for untyped objects.

/** A requirement: one property, or any one of several (written as an array). */
export type Requirement = string | readonly string[];

export interface TypeSpec {
  required: readonly Requirement[];
  /** required only when the item stands alone (not nested in the item it describes) */
  requiredStandalone?: readonly Requirement[];
  recommended: readonly string[];
}

// From Google Search Central's structured-data feature guides (product snippets, review snippets,
// article, breadcrumb, organization, local business, FAQ, event, recipe, video, sitelinks search box).
export const TYPE_SPECS: Record<string, TypeSpec> = {
  Product: { required: ['name', ['offers', 'review', 'aggregateRating']], recommended: ['image', 'description', 'brand', 'sku'] },
  // product snippets: an AggregateOffer (a price range over sellers) has lowPrice, not price
  AggregateOffer: { required: ['lowPrice', 'priceCurrency'], recommended: ['highPrice', 'offerCount'] },
  Offer: { required: [['price', 'priceSpecification'], 'priceCurrency'], recommended: ['availability', 'url', 'priceValidUntil'] },
  AggregateRating: { required: ['ratingValue', ['ratingCount', 'reviewCount']], requiredStandalone: ['itemReviewed'], recommended: ['bestRating', 'worstRating'] },
  Review: { required: ['author', 'reviewRating'], requiredStandalone: ['itemReviewed'], recommended: ['datePublished'] },
  Rating: { required: ['ratingValue'], recommended: ['bestRating', 'worstRating'] },
  Article: { required: [], recommended: ['headline', 'image', 'datePublished', 'dateModified', 'author'] },
  BreadcrumbList: { required: ['itemListElement'], recommended: [] },
  ListItem: { required: ['position', ['name', 'item']], recommended: [] },
  Organization: { required: [], recommended: ['name', 'url', 'logo', 'sameAs'] },
  LocalBusiness: { required: ['name', 'address'], recommended: ['telephone', 'url', 'geo', 'openingHoursSpecification', 'image', 'priceRange'] },
  FAQPage: { required: ['mainEntity'], recommended: [] },
  Question: { required: ['name', 'acceptedAnswer'], recommended: [] },
  Answer: { required: ['text'], recommended: [] },
  Event: { required: ['name', 'startDate', 'location'], recommended: ['description', 'endDate', 'eventStatus', 'image', 'offers', 'organizer', 'performer'] },
  Recipe: { required: ['name', 'image'], recommended: ['author', 'datePublished', 'description', 'recipeIngredient', 'recipeInstructions', 'totalTime', 'recipeYield', 'aggregateRating'] },
  VideoObject: { required: ['name', 'thumbnailUrl', 'uploadDate'], recommended: ['description', 'contentUrl', 'embedUrl', 'duration'] },
  WebSite: { required: ['url'], recommended: ['name', 'potentialAction'] },
  SearchAction: { required: ['target', 'query-input'], recommended: [] },
};

/** Subtypes judged by their parent type's guide. */
export const TYPE_ALIASES: Record<string, string> = {
  NewsArticle: 'Article',
  BlogPosting: 'Article',
  Corporation: 'Organization',
  OnlineStore: 'Organization',
  Restaurant: 'LocalBusiness',
  Store: 'LocalBusiness',
  CafeOrCoffeeShop: 'LocalBusiness',
  Bakery: 'LocalBusiness',
  Dentist: 'LocalBusiness',
  Hotel: 'LocalBusiness',
};

/** An object without @type under these properties is read as this type, as Google does. */
export const IMPLIED_TYPES: Record<string, string> = {
  offers: 'Offer',
  aggregateRating: 'AggregateRating',
  review: 'Review',
  reviewRating: 'Rating',
  acceptedAnswer: 'Answer',
};

/**
 * Items judged by the property that holds them rather than by their own type. An Article's or a
 * Review's author is a Person or an Organization, but Google's article and review guides ask of it
 * only a name (and recommend a url to a page about the author); the Organization guide's logo and
 * sameAs are for a site's own organization, not for every organization that wrote something.
 */
export const ROLE_SPECS: Record<string, TypeSpec> = {
  author: { required: ['name'], recommended: ['url'] },
};

/** Where Google reads a product's price: inside its offers, never on the Product itself. */
export const OFFER_ONLY_PROPS = ['price', 'priceCurrency', 'lowPrice', 'highPrice', 'priceSpecification', 'availability', 'priceValidUntil'] as const;
