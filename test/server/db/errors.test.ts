import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isForeignKeyViolation } from '../../../server/platform/db/errors.js';

describe('isForeignKeyViolation', () => {
  it('recognises a real SQLite foreign-key failure and nothing else', () => {
    const db = new SQLite(':memory:');
    db.pragma('foreign_keys = ON');
    db.exec(
      'CREATE TABLE parent (id TEXT PRIMARY KEY); CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent(id));',
    );
    db.exec("INSERT INTO parent VALUES ('p')");
    const failure = (statement: string): unknown => {
      try {
        db.exec(statement);
      } catch (error) {
        return error;
      }
      throw new Error(`expected ${statement} to fail`);
    };
    expect(isForeignKeyViolation(failure("INSERT INTO child VALUES ('c1', 'missing')"))).toBe(true);
    db.exec("INSERT INTO child VALUES ('c2', 'p')");
    expect(isForeignKeyViolation(failure("INSERT INTO child VALUES ('c2', 'p')"))).toBe(false); // unique, not FK
    expect(isForeignKeyViolation(failure('SELECT * FROM nowhere'))).toBe(false);
    expect(isForeignKeyViolation({ code: '23503' })).toBe(true); // PostgreSQL's SQLSTATE
    expect(isForeignKeyViolation(undefined)).toBe(false);
    db.close();
  });
});
