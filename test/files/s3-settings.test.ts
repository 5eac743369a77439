// FILE_STORE and the AWS SDK's own variables as loadConfig reads them: local by default, an
// s3:// bucket with its prefix, and a bad value stopping the start with the variable named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: '/tmp/tool-service-s3-settings', ...env });

describe('FILE_STORE settings', () => {
  it('is the local folder when unset or local', () => {
    assert.deepEqual(load({}).fileStore, { kind: 'local' });
    assert.deepEqual(load({ FILE_STORE: 'local' }).fileStore, { kind: 'local' });
  });

  it('reads s3://<bucket>[/<prefix>] with the endpoint, region, key pair and path style', () => {
    const config = load({
      FILE_STORE: 's3://tool-results/prod/files/',
      AWS_ENDPOINT_URL_S3: 'http://minio.internal:9000/',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret-example',
      S3_FORCE_PATH_STYLE: 'true',
    });
    assert.deepEqual(config.fileStore, {
      kind: 's3',
      bucket: 'tool-results',
      prefix: 'prod/files',
      endpoint: 'http://minio.internal:9000',
      // any region suits an S3-compatible server
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-example' },
      forcePathStyle: true,
    });
  });

  it("leaves AWS's endpoint, region and credentials to the SDK's chain when they are unset", () => {
    const config = load({ FILE_STORE: 's3://tool-results' });
    assert.deepEqual(config.fileStore, { kind: 's3', bucket: 'tool-results', prefix: '', endpoint: undefined, region: undefined, credentials: undefined, forcePathStyle: false });
    const withToken = load({ FILE_STORE: 's3://tool-results', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 's', AWS_SESSION_TOKEN: 'token' });
    assert.equal(withToken.fileStore.kind === 's3' && withToken.fileStore.region, 'eu-west-1');
    assert.deepEqual(withToken.fileStore.kind === 's3' && withToken.fileStore.credentials, { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 's', sessionToken: 'token' });
  });

  it('stops the start on a bad value, naming the variable', () => {
    const refused = (env: Record<string, string>, pattern: RegExp) =>
      assert.throws(() => load(env), (err: unknown) => err instanceof ConfigError && pattern.test(err.message));
    refused({ FILE_STORE: 'gs://tool-results' }, /FILE_STORE: must be local or s3:\/\/<bucket>\[\/<prefix>\]/);
    refused({ FILE_STORE: 's3://Tool_Results' }, /FILE_STORE: "Tool_Results" is not a valid bucket name/);
    refused({ FILE_STORE: 's3://' }, /FILE_STORE: must be local or s3:\/\//);
    refused({ FILE_STORE: 's3://tool-results/a/../b' }, /FILE_STORE: the prefix "a\/..\/b"/);
    refused({ FILE_STORE: 's3://tool-results/a//b' }, /FILE_STORE: the prefix/);
    refused({ FILE_STORE: 's3://tool-results', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' }, /AWS_SECRET_ACCESS_KEY: required with AWS_ACCESS_KEY_ID/);
    refused({ FILE_STORE: 's3://tool-results', AWS_SECRET_ACCESS_KEY: 's' }, /AWS_ACCESS_KEY_ID: required with AWS_SECRET_ACCESS_KEY/);
    refused({ FILE_STORE: 's3://tool-results', AWS_ENDPOINT_URL_S3: 'minio:9000' }, /AWS_ENDPOINT_URL_S3/);
    refused({ FILE_STORE: 's3://tool-results', S3_FORCE_PATH_STYLE: 'maybe' }, /S3_FORCE_PATH_STYLE/);
  });
});
