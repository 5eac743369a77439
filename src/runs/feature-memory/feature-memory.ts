// The feature memory's stores over one database, built together because patterns read features.
import type { Db } from '../../db/database.ts';
import { FeatureStore } from './feature-store.ts';
import { PatternStore } from './pattern-store.ts';
import { ProfileStore } from './profile-store.ts';

export interface FeatureMemory {
  features: FeatureStore;
  patterns: PatternStore;
  profiles: ProfileStore;
}

export function createFeatureMemory(db: Db): FeatureMemory {
  const features = new FeatureStore(db);
  return { features, patterns: new PatternStore(db, features), profiles: new ProfileStore(db) };
}
