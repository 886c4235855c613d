/** CrudController: the base class with every standard action mixed in. */
import { Create } from '../actions/create.js';
import { Delete } from '../actions/delete.js';
import { ExportCsv } from '../actions/export-csv.js';
import { Options } from '../actions/options.js';
import { Read } from '../actions/read.js';
import { Search } from '../actions/search.js';
import { Restore, SoftDelete } from '../actions/soft-delete.js';
import { Update } from '../actions/update.js';
import { BaseController } from './base-controller.js';

/**
 * Extend it and name the model; `crud` then registers every action: search, options, create,
 * exportCsv, read, update, delete, softDelete and restore. For fewer, compose the mixins on
 * `BaseController` instead.
 * @example class CategoryController extends CrudController { modelClassName() { return Category; } }
 */
export abstract class CrudController extends Restore(
  SoftDelete(Delete(Update(Read(ExportCsv(Create(Options(Search(BaseController)))))))),
) {}
