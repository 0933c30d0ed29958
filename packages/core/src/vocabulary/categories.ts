// What each category of operation does, in the words the OpenAPI document's tags and the
// assistants' tool descriptions both use.
import type { Category } from '../catalog.js';

export const CATEGORY_TEXT: Readonly<Record<Category, string>> = {
  append: 'Adds missing information to an existing record',
  lookup: 'Returns the information associated with one data point',
  verify: 'Checks the accuracy, deliverability, compliance or identity of the data given',
};
