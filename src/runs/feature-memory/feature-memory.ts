// The feature memory's stores over one database, built together because patterns read features.
import type { Db } from '../../db/database.ts';
import type { SigningKey } from '../loop/report-signature.ts';
import { FeatureStore } from './feature-store.ts';
import { PatternStore } from './pattern-store.ts';
import { ProfileStore } from './profile-store.ts';

export interface FeatureMemory {
  features: FeatureStore;
  patterns: PatternStore;
  profiles: ProfileStore;
  /**
   * The per-account key jobReports are sealed with (jobReportKey). When set, capture_feature
   * accepts only a baseline holding a jobReport sealed for the caller's account, and computes its
   * gate from the report; unset, a baseline is read as it states itself.
   */
  reportKey?: ((accountId: string) => SigningKey) | undefined;
}

export function createFeatureMemory(db: Db, options: { reportKey?: (accountId: string) => SigningKey } = {}): FeatureMemory {
  const features = new FeatureStore(db);
  return { features, patterns: new PatternStore(db, features), profiles: new ProfileStore(db), reportKey: options.reportKey };
}
