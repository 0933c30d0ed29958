// Issue 27, item 5 ("everything written is neutral"), as a hostile scenario: a service whose 200s
// carry extra fields *named* like formulas. Their values were always neutralised; their names become
// header cells of the output and go through the same rule (core's neutraliseFormula). Run by
// neutral-names.test.ts; the hostile report prints the same measurements.
import { hostileScenario, type Scenario } from './hostile-measure.js';
import { phoneRecord } from './hostile-servers.js';

/** The extra fields' names: a formula that makes a link, and an @-formula. */
export const FORMULA_FIELD_NAMES = ['=HYPERLINK("http://x","y")', '@x'] as const;

export const fieldNameFormula: Scenario = hostileScenario(
  'field-name-formula',
  'a service field named =HYPERLINK(...) or @x',
  (req, res, bill) => {
    bill();
    const phone = (JSON.parse(req.body) as { Phone?: string }).Phone ?? '';
    const record = {
      ...phoneRecord(phone),
      [FORMULA_FIELD_NAMES[0]]: 'click me',
      [FORMULA_FIELD_NAMES[1]]: 'at',
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(record));
  },
);

export const EDGE_NEUTRAL_SCENARIOS: readonly Scenario[] = [fieldNameFormula];
