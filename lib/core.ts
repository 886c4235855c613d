/**
 * koa-fast-crud/core: the pure planners and parsers `crud` is built from, and the types the main
 * entry's signatures name beyond its own. Nothing here touches Koa or Sequelize at run time: each
 * function returns a value (a plan, find options, an `Either`) and never throws, but
 * `unsafeResolveConfig`, as its name says.
 *
 * Unchecked: `parseSort` and `processSort` turn a sort string into ordering clauses without
 * checking any policy; a custom action that sorts by a client's string checks each column itself
 * (`allowedColumn` with `resolvePolicy`), as search does.
 * @module koa-fast-crud/core
 */
export type {
  Verb,
  RouteEntry,
  PlanOptions,
  Direction,
  Order,
  OptionsError,
  AttributeDefinition,
  AttributeSource,
  ActionConfig,
  SearchCount,
  CorsConfig,
  ConditionalWriteConfig,
  DeepPartial,
  ConfigError,
  ErrorStatus,
  ErrorCodeEntry,
  JSendBody,
  FieldPolicy,
  Operator,
  Condition,
  ConditionGroup,
  FilterNode,
  DateSpan,
  TermSearch,
  FullTextTerm,
  SearchPlan,
  CursorPlan,
  Cursor,
  CursorValue,
  LiveConfig,
  RowScopeContext,
  ReadRequirement,
  CommittedContext,
  RowScope,
  RowScopes,
  RelationPolicy,
  RelationWrite,
} from './types.js';
// The types the main entry's signatures name: a resource's relations, the class form typed by its model.
export type {
  RelationSpec,
  RelationSpecs,
  AssociatedModels,
  CsvPath,
  AssociationName,
  HookName,
} from './resource/resource.js';
export type {
  TypedController,
  ServesModel,
  HooksIf,
  SearchHooks,
  OptionsHooks,
  CreateHooks,
  ExportCsvHooks,
  ReadHooks,
  UpdateHooks,
  DeleteHooks,
  SoftDeleteHooks,
  RestoreHooks,
} from './controller/typed-hooks.js';
export {
  ROUTE_TABLE,
  CRUD_METHODS,
  BATCH_ROUTE_TABLE,
  LIVE_ROUTE,
  AGGREGATE_ROUTE,
  routeTable,
} from './core/route-table.js';
export {
  batchItems,
  filterProblem,
  planFilterProblem,
  matchProblem,
  itemFailures,
  groupByData,
  dataKey,
} from './core/batch-plan.js';
export { planRoutes, abilityOf, type ControllerShape } from './core/plan-routes.js';
export { parseSort, parseSortItems, processSort } from './core/sort-parser.js';
export {
  buildOptionsQuery,
  planOptions,
  undeclaredValueColumn,
  formatOptions,
  type OptionsPlan,
  type OptionsRequest,
  type OptionsSettings,
} from './core/options-query.js';
export { isPlainIdentifier, findColumn, resolveColumn, type ResolvedColumn } from './core/columns.js';
export { unsafeResolveConfig } from './core/config.js';
export { HttpStatus, isHttpStatus } from './core/http-status.js';
export { compilePath, isUuid, type CompiledPath } from './core/route-path.js';
export { success, fail, error, failItemOf, unavailable, RETRY_AFTER_SECONDS } from './core/jsend.js';
export type { DatabaseFailure } from './core/db-failure.js';
export { ERROR_CODES, statusOf, type FixedStatusCode, type DecidedStatusCode } from './core/error-codes.js';
export {
  parseTagList,
  formatTag,
  strongMatch,
  weakMatch,
  ifMatchHolds,
  ifNoneMatchHolds,
  readPrecondition,
  writePrecondition,
  versionTag,
  type EntityTag,
  type TagList,
  type Precondition,
  type ConditionalHeaders,
} from './core/etag.js';
export { replyForError, clientErrorOf, type ClientError } from './core/error-reply.js';
export type { ErrorFields } from './core/constraint-fields.js';
export { KNOWN_PARAMS, singleParam, unknownParams } from './core/query-params.js';
export { QS_OPTIONS, QUERY_QS_OPTIONS } from './core/qs-limits.js';
export { isStandardSchema, type StandardSchemaV1 } from './core/standard-schema.js';
export { resolvePolicy, allowedColumn, type PolicyDeclaration } from './core/field-policy.js';
export {
  parseFilters,
  everyCondition,
  FILTER_GROUP_DEPTH,
  FILTER_GROUPS,
  OPERATORS,
  type FilterSettings,
  type ParsedFilters,
} from './core/filter-parser.js';
export { parseDateSpan, dateBoundValues, type DateKind } from './core/date-bounds.js';
export {
  termWords,
  fullTextTerm,
  postgresTsQuery,
  mariadbBooleanQuery,
  fts5Query,
  type FullTextDialect,
  type FullTextOption,
} from './core/full-text.js';
export { fullTextDdl, type FullTextDdl, type FullTextTarget } from './core/full-text-ddl.js';
export { planSearch, type SearchRequest, type SearchSettings } from './core/search-plan.js';
export {
  planAggregate,
  aggregateRows,
  type AggregateGroup,
  type AggregatePlan,
  type AggregateRequest,
  type AggregateSettings,
} from './core/aggregate-plan.js';
export {
  resolveAggregatePolicy,
  MEASURES,
  type AggregateDeclaration,
  type AggregatePolicy,
  type Measure,
} from './core/aggregate-policy.js';
export { parseFields, pickFields, type FieldModel, type FieldTree } from './core/sparse-fields.js';
export { kindOf, type ValueKind } from './core/attribute-kinds.js';
export { csvCell } from './core/csv-cells.js';
export {
  crossOriginCheck,
  type CrossOriginRequest,
  type CrossOriginRefusal,
  type CrossOriginPass,
} from './core/cross-origin.js';
export { nearest } from './core/nearest.js';
export {
  resolveRelationPath,
  type RelationPath,
  type RelationModel,
  type RelationUse,
  type AssociationShape,
  type AssociationType,
} from './core/relation-paths.js';
export {
  resolveRelations,
  parseInclude,
  type RelationDeclaration,
  type RelationDeclarations,
} from './core/relation-policy.js';
