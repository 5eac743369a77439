// FILE_STORE and the S3 settings, parsed once by config.ts. The AWS_* names are the AWS SDK's own,
// so a node already set up for AWS, MinIO, Ceph or R2 needs nothing new. They are read from the
// environment config.ts is given (not left to the SDK's own look into process.env) so that a
// configuration is whole where it is loaded: a bad endpoint stops the start naming its variable,
// and a config built from an env object (tests, a second node in one process) reaches its own
// bucket. When AWS_ACCESS_KEY_ID is unset the SDK's default chain still applies (instance and
// task roles, web identity, AWS_PROFILE), so nothing the SDK could find on its own is lost.

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3StoreSettings {
  kind: 's3';
  bucket: string;
  /** '' or a folder without leading or trailing '/': objects are `<prefix>/<fileId>` */
  prefix: string;
  /** AWS_ENDPOINT_URL_S3; undefined: AWS's own endpoint for the region */
  endpoint: string | undefined;
  /** AWS_REGION; undefined: the SDK's chain (a profile's region) */
  region: string | undefined;
  /** undefined: the SDK's default credential chain */
  credentials: S3Credentials | undefined;
  /** S3_FORCE_PATH_STYLE: `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>` */
  forcePathStyle: boolean;
}

export type FileStoreSettings = { kind: 'local' } | S3StoreSettings;

export interface FileStoreEnv {
  FILE_STORE: string;
  AWS_ENDPOINT_URL_S3?: string | undefined;
  AWS_REGION?: string | undefined;
  AWS_ACCESS_KEY_ID?: string | undefined;
  AWS_SECRET_ACCESS_KEY?: string | undefined;
  AWS_SESSION_TOKEN?: string | undefined;
  S3_FORCE_PATH_STYLE: boolean;
}

// S3's bucket naming rules (lower case, digits, '.', '-'; 3-63 characters, a letter or digit at each end).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// Prefix segments: the characters S3 documents as safe in keys, so a prefix never needs escaping.
const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;

/** FILE_STORE and its S3 companions, or an Error whose message names the variable at fault. */
export function parseFileStore(e: FileStoreEnv): FileStoreSettings {
  const value = e.FILE_STORE.trim();
  if (value === '' || value === 'local') return { kind: 'local' };
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(value);
  if (!match) throw new Error(`FILE_STORE: must be local or s3://<bucket>[/<prefix>] (got "${value.split(':')[0]}:...")`);
  const bucket = match[1] ?? '';
  if (!BUCKET.test(bucket)) throw new Error(`FILE_STORE: "${bucket}" is not a valid bucket name (3-63 characters: a-z, 0-9, '.', '-')`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && !prefix.split('/').every((segment) => PREFIX_SEGMENT.test(segment) && segment !== '.' && segment !== '..')) {
    throw new Error(`FILE_STORE: the prefix "${prefix}" must be folders of A-Z, a-z, 0-9 and !_.*'()- separated by single '/'`);
  }
  if ((e.AWS_ACCESS_KEY_ID === undefined) !== (e.AWS_SECRET_ACCESS_KEY === undefined)) {
    throw new Error(`${e.AWS_ACCESS_KEY_ID === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY'}: required with ${e.AWS_ACCESS_KEY_ID === undefined ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID'}`);
  }
  const credentials =
    e.AWS_ACCESS_KEY_ID !== undefined && e.AWS_SECRET_ACCESS_KEY !== undefined
      ? { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY, ...(e.AWS_SESSION_TOKEN === undefined ? {} : { sessionToken: e.AWS_SESSION_TOKEN }) }
      : undefined;
  const endpoint = e.AWS_ENDPOINT_URL_S3?.replace(/\/+$/, '');
  // An S3-compatible server (MinIO, Ceph, s3rver) takes any region; AWS itself needs the real one.
  const region = e.AWS_REGION ?? (endpoint === undefined ? undefined : 'us-east-1');
  return { kind: 's3', bucket, prefix, endpoint, region, credentials, forcePathStyle: e.S3_FORCE_PATH_STYLE };
}
