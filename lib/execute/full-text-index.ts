/** fullTextIndex: the index (PostgreSQL, MariaDB) or FTS5 table (SQLite) a full-text term search reads. */
import * as E from 'fp-ts/lib/Either.js';
import type { Model, ModelStatic, QueryInterface } from 'sequelize';
import { resolveColumn } from '../core/columns.js';
import { languageOf, type FullTextOption } from '../core/full-text.js';
import { fullTextDdl, type FullTextDdl } from '../core/full-text-ddl.js';
import { sqliteRowid } from '../compile/full-text.js';
import type { Resource } from '../resource/resource.js';

/** The part of a resource's spec the index is made from. */
interface SearchSpec {
  readonly search?: { readonly termFields?: readonly string[]; readonly fullText?: FullTextOption } | undefined;
}

/** A full-text index's statements, and what runs them (in a migration, or at start-up). */
export interface FullTextIndex {
  /** The SQL `up` runs, in order, and the SQL `down` runs: for a reviewer, or a migration in plain SQL. */
  readonly statements: FullTextDdl;
  /** Makes the index (each statement is idempotent: `IF NOT EXISTS`), on the model's connection by default. */
  up(queryInterface?: QueryInterface): Promise<void>;
  /** Drops it. */
  down(queryInterface?: QueryInterface): Promise<void>;
}

/**
 * What a resource with `search.fullText` needs, for its model's dialect: PostgreSQL's GIN expression index over
 * `to_tsvector(<language>, <term fields>)`, MariaDB's FULLTEXT index on the term fields, or SQLite's external-content
 * FTS5 table `<table>_fts` with the triggers that keep it in step (filled from the table's rows). Takes the resource,
 * or a model with its term fields and setting; throws a TypeError for a name that is not a column of the model.
 * @example await fullTextIndex(products).up() // at start-up
 * @example export const up = ({ context }) => fullTextIndex(Product, ['name', 'description']).up(context);
 */
export function fullTextIndex<M extends Model>(resource: Resource<M>): FullTextIndex;
export function fullTextIndex<M extends Model>(
  model: ModelStatic<M>,
  termFields: readonly string[],
  fullText?: FullTextOption,
): FullTextIndex;
export function fullTextIndex(
  target:
    { readonly kind: 'resource'; readonly model: ModelStatic<Model>; readonly spec: SearchSpec } | ModelStatic<Model>,
  fields?: readonly string[],
  fullText: FullTextOption = true,
): FullTextIndex {
  const declared = 'kind' in target && target.kind === 'resource' ? target : undefined;
  const model = declared?.model ?? (target as ModelStatic<Model>);
  const termFields = declared === undefined ? (fields ?? []) : (declared.spec.search?.termFields ?? []);
  const option = declared === undefined ? fullText : (declared.spec.search?.fullText ?? true);
  const columns = termFields.map((name) => {
    const found = resolveColumn(model, name);
    if (found === undefined)
      throw new TypeError(`fullTextIndex: ${JSON.stringify(name)} is not a column of ${model.name}`);
    return found.column;
  });
  const dialect = model.sequelize!.getDialect();
  if (dialect !== 'postgres' && dialect !== 'mariadb' && dialect !== 'sqlite')
    throw new TypeError(`fullTextIndex: the ${dialect} dialect has no full-text search here`);
  const ddl = fullTextDdl(dialect, {
    table: model.tableName,
    columns,
    rowid: dialect === 'sqlite' ? sqliteRowid(model) : undefined,
    language: languageOf(option),
  });
  if (E.isLeft(ddl)) throw new TypeError(`fullTextIndex(${model.name}): ${ddl.left}`);
  const run = async (statements: readonly string[], queryInterface: QueryInterface | undefined) => {
    const { sequelize } = queryInterface ?? model.sequelize!.getQueryInterface();
    for (const sql of statements) await sequelize.query(sql);
  };
  return Object.freeze({
    statements: ddl.right,
    up: (queryInterface?: QueryInterface) => run(ddl.right.up, queryInterface),
    down: (queryInterface?: QueryInterface) => run(ddl.right.down, queryInterface),
  });
}
