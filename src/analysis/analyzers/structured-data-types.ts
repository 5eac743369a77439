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
  AggregateOffer: 'Offer',
};

/** An object without @type under these properties is read as this type, as Google does. */
export const IMPLIED_TYPES: Record<string, string> = {
  offers: 'Offer',
  aggregateRating: 'AggregateRating',
  review: 'Review',
  reviewRating: 'Rating',
  acceptedAnswer: 'Answer',
};
