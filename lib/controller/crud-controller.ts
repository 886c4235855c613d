/** CrudController: the base class with every standard action mixed in. */
import { Options } from '../actions/options.js';
import { BaseController } from './base-controller.js';

/**
 * Extend it and name the model; `crud` then registers every action it carries.
 * @example class CategoryController extends CrudController { modelClassName() { return Category; } }
 */
export abstract class CrudController extends Options(BaseController) {}
