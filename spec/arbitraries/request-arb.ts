/** Arbitrary query strings and bodies, hostile ones included, for the never-5xx property. */
import fc from 'fast-check';

const hostile = fc.constantFrom(
  'name; DROP TABLE x',
  "'--",
  '"',
  '*',
  '%',
  '_',
  '\\',
  '\u0000',
  '__proto__',
  'constructor',
  '1e309',
  '-0',
  'NaN',
  ' ',
  '',
);
/** Dot paths through the catalog's `category` association, valid and not. */
const path = fc.oneof(
  fc.constantFrom(
    'category.name',
    'category.id',
    'category.deletedAt',
    'category.deleted_at',
    'category.nope',
    'nope.name',
    'category.name.x',
    '__proto__.name',
    'category.constructor',
    'category.',
    '.name',
    'a.b.c.d.e',
  ),
  fc.tuple(fc.constantFrom('category', 'nope', '__proto__'), fc.string({ maxLength: 6 })).map(([a, c]) => `${a}.${c}`),
);
const column = fc.oneof(
  fc.constantFrom(
    'sku',
    'name',
    'price',
    'stock',
    'active',
    'releasedOn',
    'released_on',
    'tags',
    'secret',
    'categoryId',
    'deleted_at',
    'term',
    'id',
  ),
  path,
  hostile,
  fc.string({ maxLength: 8 }),
);
const operator = fc.oneof(
  fc.constantFrom(
    'eq',
    'neq',
    'like',
    'in',
    'nin',
    'gt',
    'gte',
    'lt',
    'lte',
    'btw',
    'gtn',
    'ltn',
    'nn',
    'json',
    '',
    '0',
  ),
  hostile,
);
const value = fc.oneof(
  hostile,
  fc.string({ maxLength: 12 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.uuid(),
  fc.json({ maxDepth: 2 }),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);

const enc = encodeURIComponent;

/**
 * Where a filter goes: the top, or inside `$or`/`$and` groups (one to four deep, the fourth refused), their keys
 * and indices valid or not.
 */
const groupKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('$or', '$and') },
  fc.constantFrom('$xor', '$', 'or', '$OR', '__proto__', '$or]'),
);
const groupIndex = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 2 }).map(String) },
  fc.constantFrom('', 'x', '101', '-1'),
);
const groupPrefix = fc.oneof(
  { weight: 2, arbitrary: fc.constant('filter') },
  fc
    .array(fc.tuple(groupKey, groupIndex), { minLength: 1, maxLength: 4 })
    .map((steps) => `filter${steps.map(([k, i]) => `[${enc(k)}][${enc(i)}]`).join('')}`),
);

/** An aggregate request's own parameters: measures of columns (or `*`), and groupings by columns and paths. */
const aggregateParameter = fc.oneof(
  fc
    .tuple(
      fc.oneof(fc.constantFrom('count', 'sum', 'avg', 'min', 'max'), column),
      fc.array(fc.oneof(fc.constantFrom('*', 'price', 'id', 'category.name'), column, hostile), { maxLength: 3 }),
    )
    .map(([measure, items]) => `aggregate[${enc(measure)}]=${enc(items.join(','))}`),
  fc
    .array(fc.oneof(fc.constantFrom('name', 'category.name', 'categoryId', 'category', 'nope.x'), column, hostile), {
      maxLength: 3,
    })
    .map((items) => `groupBy=${enc(items.join(','))}`),
  fc.constantFrom(
    'aggregate=sum',
    'aggregate[]=price',
    'aggregate[sum][price]=1',
    'groupBy[]=name',
    'aggregate[count]=',
  ),
);

/** One query parameter of a search, an export, an options or an aggregate request. */
const parameter = fc.oneof(
  aggregateParameter,
  fc.tuple(groupPrefix, column, operator, value).map(([at, c, o, v]) => `${at}[${enc(c)}][${enc(o)}]=${enc(v)}`),
  fc.tuple(groupPrefix, column, value).map(([at, c, v]) => `${at}[${enc(c)}]=${enc(v)}`),
  fc.tuple(groupKey, value).map(([k, v]) => `filter[${enc(k)}]=${enc(v)}`),
  fc.tuple(column, value).map(([c, v]) => `filter[${enc(c)}]=${enc(v)}`),
  fc
    .tuple(column, fc.array(value, { maxLength: 3 }))
    .map(([c, vs]) => vs.map((v) => `filter[${enc(c)}][in][]=${enc(v)}`).join('&')),
  fc
    .array(fc.tuple(fc.boolean(), column), { maxLength: 3 })
    .map((items) => `sort=${enc(items.map(([d, c]) => (d ? '-' : '') + c).join(','))}`),
  fc
    .tuple(
      fc.constantFrom(
        'page',
        'perPage',
        'skipPagination',
        'label',
        'value',
        'filter',
        'sort',
        'include',
        'q',
        'limit',
        'cursor',
      ),
      value,
    )
    .map(([k, v]) => `${k}=${enc(v)}`),
  fc
    .array(fc.oneof(fc.constantFrom('category', 'nope', 'category.x', '__proto__'), hostile), { maxLength: 3 })
    .map((items) => `include=${enc(items.join(','))}`),
  fc
    .array(
      fc.oneof(fc.constantFrom('id', 'name', 'category.name', 'category', 'nope.x', '__proto__'), column, hostile),
      {
        maxLength: 3,
      },
    )
    .map((items) => `fields=${enc(items.join(','))}`),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    'filter[a][b][c][d][e][f]=1',
    'filter[]=1',
    'filter[name][]=x',
    'sort[]=name',
    'label[]=name',
    '%',
    '&&=',
    'filter[name][like]=%25_%5C',
    'label=name&q=%25_%5C&limit=3',
    'label=name&limit=1000000000',
    'cursor=',
    `cursor=WyJhIiwiMSJd.${'A'.repeat(43)}`,
  ),
);

/** A whole query string. */
export const queryStringArb = fc.array(parameter, { maxLength: 5 }).map((ps) => ps.join('&'));

/** A JSON body: mostly objects with the catalog's keys and values of any type. */
export const bodyArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(
      column,
      fc.oneof(value, fc.jsonValue({ maxDepth: 2 }), fc.constant(null), fc.boolean(), fc.integer(), fc.double()),
      { maxKeys: 6 },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
