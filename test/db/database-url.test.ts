// DATABASE_URL: sqlite:<path> (the default) or postgres://user:pass@host:port/db; a bad value
// stops the start naming the variable, and never repeats the password.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, isPostgresUrl, loadConfig } from '../../src/config.ts';

function refusal(url: string): string {
  try {
    loadConfig({ DATA_DIR: '/tmp/unused-data-dir', DATABASE_URL: url });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail(`${url} was accepted`);
}

describe('DATABASE_URL', () => {
  it('defaults to the SQLite file in DATA_DIR and takes sqlite: and postgres:// URLs', () => {
    assert.equal(loadConfig({ DATA_DIR: '/tmp/unused-data-dir' }).databaseUrl, 'sqlite:/tmp/unused-data-dir/tool-service.db');
    for (const url of ['sqlite:/var/lib/tools/db.sqlite', 'postgres://tools:s3cret@db.internal:5432/tools', 'postgresql://tools@127.0.0.1/tools?sslmode=require']) {
      assert.equal(loadConfig({ DATA_DIR: '/tmp/unused-data-dir', DATABASE_URL: url }).databaseUrl, url);
    }
    assert.equal(isPostgresUrl('postgres://h/db'), true);
    assert.equal(isPostgresUrl('sqlite:/x.db'), false);
  });

  it('refuses other schemes and incomplete postgres URLs, naming the variable and not the password', () => {
    assert.match(refusal('mysql://u:p@h/db'), /DATABASE_URL: must be sqlite:<path> or postgres:\/\/user:pass@host:port\/db \(got "mysql:"\)/);
    assert.match(refusal('postgres://tools:hunter2@db.internal:5432'), /DATABASE_URL: names no database/);
    assert.match(refusal('postgres://tools:hunter2@:5432/tools'), /DATABASE_URL: (names no host|is not a valid postgres:\/\/ URL)/);
    assert.match(refusal('postgres://tools:hun ter2@db.internal:99999/tools'), /DATABASE_URL: is not a valid postgres:\/\/ URL/);
    for (const url of ['postgres://tools:hunter2@db.internal:5432', 'postgres://tools:hunter2@:5432/tools']) assert.doesNotMatch(refusal(url), /hunter2/);
  });
});
