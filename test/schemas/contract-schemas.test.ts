import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';

const DIR = join(__dirname, '..', '..', 'schemas', 'contract');
const BASE = 'https://adapter-engine.dev/schemas/contract/';

type Json = Record<string, any>;

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.schema.json'))
  .sort();
const schemas: Record<string, Json> = Object.fromEntries(
  files.map((f) => [f, JSON.parse(readFileSync(join(DIR, f), 'utf8'))]),
);

const EXPECTED_FILES = [
  'attach-work-order.schema.json',
  'cancel-put-wall-item.schema.json',
  'cancel-work-order-request.schema.json',
  'cart-step-confirmation.schema.json',
  'code-lookup-query.schema.json',
  'confirm-step-data.schema.json',
  'enums.schema.json',
  'envelope.schema.json',
  'export-column.schema.json',
  'export-values-request.schema.json',
  'export-values-row.schema.json',
  'external-indexable-value-label.schema.json',
  'file-request.schema.json',
  'item-number-path.schema.json',
  'item.schema.json',
  'localized-item-name.schema.json',
  'put-wall-code-path.schema.json',
  'put-wall-placement.schema.json',
  'relocate-cart-containers.schema.json',
  'report-data.schema.json',
  'report-request.schema.json',
  'request-line.schema.json',
  'step-confirmation.schema.json',
  'update-work-order-request.schema.json',
  'work-order-status.schema.json',
  'work-order.schema.json',
];

/** Outputs (data the engine returns): strict objects. */
const OUTPUT_FILES = [
  'envelope.schema.json',
  'work-order.schema.json',
  'request-line.schema.json',
  'item.schema.json',
  'localized-item-name.schema.json',
  'export-column.schema.json',
  'export-values-row.schema.json',
  'report-data.schema.json',
  'update-work-order-request.schema.json',
  'external-indexable-value-label.schema.json',
  'confirm-step-data.schema.json',
];
/** Inputs (what the platform sends): loose objects. */
const INPUT_FILES = EXPECTED_FILES.filter((f) => f !== 'enums.schema.json' && !OUTPUT_FILES.includes(f));
/** Input variants that live in output files (shared by several input schemas). */
const INPUT_DEFINITIONS: Record<string, string[]> = {
  'localized-item-name.schema.json': ['input'],
  'update-work-order-request.schema.json': ['input', 'itemRequestInput'],
};

const CONTRACT_ENUMS: Record<string, string[]> = {
  unitOfMeasure: [
    'Piece', 'Meter', 'Centimeter', 'Millimeter', 'Kilogram', 'Gram', 'Milligram',
    'Liter', 'Centiliter', 'Milliliter', 'Gallon', 'Pound', 'SquareMeter', 'CubicMeter',
  ],
  requestType: ['Ignored', 'PickItem', 'PlaceItem'],
  fileType: ['JSON', 'CSV'],
  workOrderStatus: [
    'New', 'Paused', 'Assigned', 'Completed', 'Empty', 'Abandoned', 'Canceled',
    'CompletedWithCancelations', 'Unknown',
  ],
};

let ajv: Ajv;
const validators: Record<string, ValidateFunction> = {};
function v(file: string, fragment = ''): ValidateFunction {
  const key = file + fragment;
  if (!validators[key]) {
    const fn = ajv.getSchema(BASE + file + fragment);
    if (!fn) throw new Error(`schema not found: ${key}`);
    validators[key] = fn;
  }
  return validators[key];
}
function ok(file: string, data: unknown, fragment = ''): void {
  const fn = v(file, fragment);
  const valid = fn(data);
  expect(valid, JSON.stringify(fn.errors, null, 2)).toBe(true);
}
function bad(file: string, data: unknown, fragment = ''): Json[] {
  const fn = v(file, fragment);
  expect(fn(data)).toBe(false);
  return fn.errors ?? [];
}

/** Walk every subschema, calling fn with a JSON-pointer-like path. */
function walk(schema: unknown, path: string, fn: (s: Json, path: string) => void): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as Json;
  fn(s, path);
  for (const k of ['properties', 'definitions']) {
    for (const [name, sub] of Object.entries(s[k] ?? {})) walk(sub, `${path}/${k}/${name}`, fn);
  }
  for (const k of ['items', 'additionalProperties']) {
    if (typeof s[k] === 'object') walk(s[k], `${path}/${k}`, fn);
  }
  for (const k of ['anyOf', 'allOf', 'oneOf']) {
    (s[k] ?? []).forEach((sub: unknown, i: number) => walk(sub, `${path}/${k}/${i}`, fn));
  }
}
const hasType = (s: Json, t: string) => s.type === t || (Array.isArray(s.type) && s.type.includes(t));

// ---------------------------------------------------------------- examples
const validWorkOrder = () => ({
  number: 'WO-1001',
  externalIdentifier: 'ERP-77',
  description: 'Replenishment',
  dueDate: '2026-12-01T08:00:00Z',
  customerRequiredDeliveryDate: '2026-12-03T12:00:00+01:00',
  requests: [
    {
      itemNumber: 'ITEM-1',
      itemName: 'Screw M4',
      requestedAmount: 12,
      unitOfMeasure: 0,
      lotNumber: null,
      requestType: 1,
      order: 1,
      designatedLocationName: 'A-01-02',
    },
    { itemNumber: 'ITEM-2', requestedAmount: 3, unitOfMeasure: 4 },
  ],
  workOrderTypeName: 'Pick',
  designatedStorageName: 'Main',
  deliveryNumber: null,
  alternativeStartNumber: null,
  externalData: '{"priority":2}',
});

beforeAll(() => {
  ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addKeyword('x-enumNames');
  for (const f of files) ajv.addSchema(schemas[f]);
});

describe('contract schemas: files and metadata', () => {
  it('has exactly the expected files', () => {
    expect(files).toEqual([...EXPECTED_FILES].sort());
  });

  it.each(EXPECTED_FILES)('%s compiles in strict mode and has the right $id', (f) => {
    expect(schemas[f].$id).toBe(BASE + f);
    expect(schemas[f].$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(() => ajv.compile({ $ref: BASE + f })).not.toThrow();
    for (const def of Object.keys(schemas[f].definitions ?? {})) {
      expect(() => ajv.compile({ $ref: `${BASE}${f}#/definitions/${def}` })).not.toThrow();
    }
  });

  it.each(EXPECTED_FILES)('%s: every schema, definition and property has a description', (f) => {
    const missing: string[] = [];
    walk(schemas[f], '#', (s, path) => {
      if (typeof s.description !== 'string' || s.description.length === 0) {
        // bare items / map-value / anyOf branches are covered by the referenced or parent schema
        if (/\/(properties|definitions)\/[^/]+$/.test(path) || path === '#') missing.push(path);
      }
    });
    expect(missing).toEqual([]);
  });

  it.each(EXPECTED_FILES)('%s: $refs are relative file names or local pointers', (f) => {
    const refs: string[] = [];
    walk(schemas[f], '#', (s) => {
      if (typeof s.$ref === 'string') refs.push(s.$ref);
    });
    for (const r of refs) {
      expect(r).toMatch(/^([a-z-]+\.schema\.json)?(#\/definitions\/[A-Za-z]+)?$/);
      const target = r.startsWith('#') ? f : r.split('#')[0];
      expect(files).toContain(target);
    }
  });

  it('enum values are declared only in enums.schema.json', () => {
    for (const f of EXPECTED_FILES.filter((x) => x !== 'enums.schema.json')) {
      walk(schemas[f], '#', (s, path) => {
        expect(s.enum, `${f} ${path}`).toBeUndefined();
        expect(s.const, `${f} ${path}`).toBeUndefined();
      });
    }
  });

  it.each(OUTPUT_FILES)('output %s: every object forbids additional properties', (f) => {
    const inputDefs = (INPUT_DEFINITIONS[f] ?? []).map((d) => `#/definitions/${d}`);
    walk(schemas[f], '#', (s, path) => {
      if (inputDefs.some((d) => path.startsWith(d))) return;
      if (!hasType(s, 'object')) return;
      if (s.properties) expect(s.additionalProperties, `${f} ${path}`).toBe(false);
      else expect(typeof s.additionalProperties, `${f} ${path} (map)`).toBe('object');
    });
  });

  it.each(INPUT_FILES)('input %s: every object explicitly allows additional properties', (f) => {
    walk(schemas[f], '#', (s, path) => {
      if (hasType(s, 'object') && s.properties) expect(s.additionalProperties, `${f} ${path}`).toBe(true);
    });
  });

  it('input variants declared in output files are loose and mirror the strict properties', () => {
    const pairs: Array<[Json, Json]> = [
      [schemas['localized-item-name.schema.json'], schemas['localized-item-name.schema.json'].definitions.input],
      [schemas['update-work-order-request.schema.json'], schemas['update-work-order-request.schema.json'].definitions.input],
      [
        schemas['update-work-order-request.schema.json'].definitions.itemRequest,
        schemas['update-work-order-request.schema.json'].definitions.itemRequestInput,
      ],
    ];
    for (const [strict, loose] of pairs) {
      expect(Object.keys(loose.properties).sort()).toEqual(Object.keys(strict.properties).sort());
      expect(loose.additionalProperties).toBe(true);
      expect(loose.required).toBeUndefined();
    }
  });
});

describe('enums', () => {
  const defs = () => schemas['enums.schema.json'].definitions as Record<string, Json>;

  it('declares exactly the contract enums', () => {
    expect(Object.keys(defs()).sort()).toEqual(Object.keys(CONTRACT_ENUMS).sort());
  });

  it.each(Object.keys(CONTRACT_ENUMS))('%s: integer enum 0..n with x-enumNames as in the contract', (name) => {
    const d = defs()[name];
    expect(d.type).toBe('integer');
    expect(d['x-enumNames']).toHaveLength(d.enum.length);
    expect(d.enum).toEqual(d.enum.map((_: number, i: number) => i));
    expect(d['x-enumNames']).toEqual(CONTRACT_ENUMS[name]);
  });

  it('spot-checks names against the contract', () => {
    const name = (e: string, value: number) => defs()[e]['x-enumNames'][defs()[e].enum.indexOf(value)];
    expect(name('unitOfMeasure', 0)).toBe('Piece');
    expect(name('unitOfMeasure', 4)).toBe('Kilogram');
    expect(name('unitOfMeasure', 13)).toBe('CubicMeter');
    expect(name('workOrderStatus', 7)).toBe('CompletedWithCancelations');
    expect(name('requestType', 2)).toBe('PlaceItem');
    expect(name('fileType', 1)).toBe('CSV');
  });

  it('rejects values outside the enum and non-integers', () => {
    const uom = `${BASE}enums.schema.json#/definitions/unitOfMeasure`;
    const fn = ajv.getSchema(uom)!;
    expect(fn(13)).toBe(true);
    expect(fn(14)).toBe(false);
    expect(fn(-1)).toBe(false);
    expect(fn('4')).toBe(false);
    expect(fn(1.5)).toBe(false);
  });
});

describe('envelope', () => {
  it('accepts a code lookup failure with a message and no data', () => {
    ok('envelope.schema.json', {
      isResultSuccess: false,
      result: 2,
      validationStatus: null,
      externalMessage: 'Order is blocked',
    });
  });
  it('accepts any data and any validationStatus', () => {
    ok('envelope.schema.json', {
      isResultSuccess: true,
      result: 2,
      validationStatus: { errors: [] },
      externalMessage: null,
      data: [validWorkOrder()],
    });
  });
  it('requires the first four fields and rejects extra ones', () => {
    bad('envelope.schema.json', { isResultSuccess: true, result: 1, externalMessage: null });
    bad('envelope.schema.json', { isResultSuccess: true, result: 1, validationStatus: null });
    bad('envelope.schema.json', { isResultSuccess: true, result: 1, validationStatus: null, externalMessage: null, extra: 1 });
    bad('envelope.schema.json', { isResultSuccess: 'true', result: 1, validationStatus: null, externalMessage: null });
    bad('envelope.schema.json', { isResultSuccess: true, result: 1.5, validationStatus: null, externalMessage: null });
  });
});

describe('WorkOrder (output)', () => {
  it('accepts a valid work order', () => {
    ok('work-order.schema.json', validWorkOrder());
  });
  it('accepts a minimal work order and nulls in optional fields', () => {
    ok('work-order.schema.json', { number: 'WO-1', dueDate: '2026-12-01T00:00:00.000Z', requests: [] });
    ok('work-order.schema.json', {
      number: 'WO-1',
      dueDate: '2026-12-01T00:00:00Z',
      requests: [{ itemNumber: 'I', requestedAmount: 1, unitOfMeasure: null, requestType: null, order: null }],
      description: null,
      customerRequiredDeliveryDate: null,
    });
  });
  it('rejects a missing dueDate', () => {
    const wo: Json = validWorkOrder();
    delete wo.dueDate;
    const errors = bad('work-order.schema.json', wo);
    expect(errors.some((e) => e.keyword === 'required' && e.params.missingProperty === 'dueDate')).toBe(true);
  });
  it('rejects a dueDate without time', () => {
    const errors = bad('work-order.schema.json', { ...validWorkOrder(), dueDate: '2026-12-01' });
    expect(errors.some((e) => e.keyword === 'format' && e.instancePath === '/dueDate')).toBe(true);
  });
  it('rejects a null dueDate and null number', () => {
    bad('work-order.schema.json', { ...validWorkOrder(), dueDate: null });
    bad('work-order.schema.json', { ...validWorkOrder(), number: null });
  });
  it('rejects unitOfMeasure 14 in a request line', () => {
    const wo = validWorkOrder();
    (wo.requests[1] as Json).unitOfMeasure = 14;
    const errors = bad('work-order.schema.json', wo);
    expect(errors.some((e) => e.instancePath === '/requests/1/unitOfMeasure')).toBe(true);
  });
  it('rejects a typo property (dueDat)', () => {
    const errors = bad('work-order.schema.json', { ...validWorkOrder(), dueDat: '2026-12-01T00:00:00Z' });
    expect(errors.some((e) => e.keyword === 'additionalProperties' && e.params.additionalProperty === 'dueDat')).toBe(true);
  });
  it('rejects request lines without required fields, with non-integer amounts or extra fields', () => {
    bad('work-order.schema.json', { ...validWorkOrder(), requests: [{ itemNumber: 'I' }] });
    bad('work-order.schema.json', { ...validWorkOrder(), requests: [{ requestedAmount: 1 }] });
    bad('work-order.schema.json', { ...validWorkOrder(), requests: [{ itemNumber: 'I', requestedAmount: 1.5 }] });
    bad('work-order.schema.json', { ...validWorkOrder(), requests: [{ itemNumber: 'I', requestedAmount: 1, qty: 2 }] });
    bad('work-order.schema.json', { ...validWorkOrder(), requests: [{ itemNumber: 'I', requestedAmount: 1, requestType: 3 }] });
  });
  it('rejects missing requests', () => {
    const wo: Json = validWorkOrder();
    delete wo.requests;
    bad('work-order.schema.json', wo);
  });
});

describe('Item (output)', () => {
  it('accepts an item with nulls in optional fields', () => {
    ok('item.schema.json', {
      number: 'ITEM-1',
      name: null,
      description: null,
      languageIsoCode: null,
      minimumStockQuantity: null,
      weight: null,
      height: null,
      width: null,
      length: null,
      volume: null,
      manufacturer: null,
      unitOfMeasure: null,
      externalIdentifier: null,
    });
  });
  it('accepts a full item', () => {
    ok('item.schema.json', {
      number: 'ITEM-1',
      name: 'Screw',
      weight: 0.25,
      volume: 1,
      unitOfMeasure: 13,
      minimumStockQuantity: 10,
    });
  });
  it('rejects a missing number, wrong types and extra fields', () => {
    bad('item.schema.json', { name: 'x' });
    bad('item.schema.json', { number: 'I', weight: '0.25' });
    bad('item.schema.json', { number: 'I', unitOfMeasure: 14 });
    bad('item.schema.json', { number: 'I', colour: 'red' });
  });
});

describe('other outputs', () => {
  it('localized item name', () => {
    ok('localized-item-name.schema.json', { languageIsoCode: 'en', name: 'Screw', isDefault: true });
    bad('localized-item-name.schema.json', { languageIsoCode: 'en', name: 'Screw', isDefault: 'yes' });
    bad('localized-item-name.schema.json', { name: 'Screw', lang: 'en' });
  });
  it('export column', () => {
    ok('export-column.schema.json', { key: 'carrier', header: 'Carrier' });
    bad('export-column.schema.json', { key: 'carrier' });
    bad('export-column.schema.json', { key: 'carrier', header: 'Carrier', width: 3 });
  });
  it('export values row', () => {
    ok('export-values-row.schema.json', { workOrderNumber: 'WO-1', values: { carrier: 'DHL', note: null } });
    ok('export-values-row.schema.json', { workOrderNumber: 'WO-1', values: {} });
    bad('export-values-row.schema.json', { workOrderNumber: 'WO-1', values: { weight: 3 } });
    bad('export-values-row.schema.json', { workOrderNumber: 'WO-1' });
    bad('export-values-row.schema.json', { values: {} });
  });
  it('report data', () => {
    ok('report-data.schema.json', {
      missingQuantities: { 'ITEM-1': 2, 'ITEM-2': 0.5 },
      placements: [{ itemNumber: 'ITEM-1', locationName: 'A-01', amount: 10 }],
    });
    ok('report-data.schema.json', { missingQuantities: {}, placements: [] });
    bad('report-data.schema.json', { missingQuantities: { 'ITEM-1': '2' }, placements: [] });
    bad('report-data.schema.json', { missingQuantities: {}, placements: [{ itemNumber: 'I', amount: 1 }] });
    bad('report-data.schema.json', { missingQuantities: {}, placements: [{ itemNumber: 'I', locationName: 'L', amount: 1, x: 1 }] });
  });
  it('external indexable value label', () => {
    ok('external-indexable-value-label.schema.json', { label: '' });
    ok('external-indexable-value-label.schema.json', { label: 'Customer Name' });
    bad('external-indexable-value-label.schema.json', {});
    bad('external-indexable-value-label.schema.json', { label: 'x', labl: 'y' });
  });
  it('update model and confirm step data', () => {
    const update = {
      id: 42,
      description: null,
      dueDate: '2026-12-01T08:00:00Z',
      customerRequiredDeliveryDate: null,
      itemRequests: [
        {
          requestId: 7,
          itemNumber: 'ITEM-1',
          itemName: 'Screw',
          itemUnitOfMeasure: 0,
          requestedAmount: 5,
          isCancelled: false,
          designatedLocationId: 3,
          lotNumber: null,
          type: 1,
          order: 1,
          externalIdentifier: 'L-1',
          externalData: null,
        },
        { itemNumber: 'ITEM-2', requestedAmount: 0, isCancelled: true, designatedLocationId: 'loc-uuid' },
      ],
    };
    ok('update-work-order-request.schema.json', update);
    ok('confirm-step-data.schema.json', { updateWorkOrderRequest: update });
    ok('confirm-step-data.schema.json', { updateWorkOrderRequest: null });
    bad('confirm-step-data.schema.json', {});
    bad('confirm-step-data.schema.json', { updateWorkOrderRequest: { ...update, idd: 1 } });
    bad('update-work-order-request.schema.json', { description: 'no id' });
    bad('update-work-order-request.schema.json', { id: 1, dueDate: '2026-12-01' });
    bad('update-work-order-request.schema.json', { id: 1, itemRequests: [{ itemNumber: 'I', requestedAmount: 1, cancelled: true }] });
    bad('update-work-order-request.schema.json', { id: 1, itemRequests: [{ itemNumber: 'I', requestedAmount: 1, type: 3 }] });
    bad('update-work-order-request.schema.json', { id: 1, itemRequests: [{ itemNumber: 'I', requestedAmount: 1, designatedLocationId: true }] });
  });
});

describe('inputs: request bodies', () => {
  it('file request', () => {
    ok('file-request.schema.json', { fileContent: 'eyJhIjoxfQ==', fileType: 0 });
    ok('file-request.schema.json', { fileContent: 'YSxi', fileType: 1, fileName: 'orders.csv' });
    bad('file-request.schema.json', { fileContent: 'YSxi' });
    bad('file-request.schema.json', { fileContent: 'YSxi', fileType: 2 });
    bad('file-request.schema.json', { fileContent: 'YSxi', fileType: '1' });
    bad('file-request.schema.json', { fileContent: null, fileType: 0 });
  });

  it('report request', () => {
    const body = { workOrdersNumbers: ['WO-1', 'WO-2'], storageId: 'S1', remainingRequests: { 'ITEM-1': 2 } };
    ok('report-request.schema.json', body);
    ok('report-request.schema.json', { ...body, somethingNew: true });
    const { storageId: _s, ...noStorage } = body;
    const errors = bad('report-request.schema.json', noStorage);
    expect(errors.some((e) => e.keyword === 'required' && e.params.missingProperty === 'storageId')).toBe(true);
    bad('report-request.schema.json', { ...body, remainingRequests: { 'ITEM-1': '2' } });
    bad('report-request.schema.json', { ...body, workOrdersNumbers: 'WO-1' });
  });

  it('export values request', () => {
    ok('export-values-request.schema.json', [
      { workOrderNumber: 'WO-1', externalData: '{}', deliveryNoteExternalData: null, deliveryAddressExternalData: null, extra: 1 },
      { workOrderNumber: 'WO-2', externalData: null },
    ]);
    ok('export-values-request.schema.json', []);
    bad('export-values-request.schema.json', { workOrderNumber: 'WO-1' });
    bad('export-values-request.schema.json', [{ workOrderNumber: 1 }]);
  });

  const stepBody = () => ({
    storageName: 'Main',
    userEmail: 'op@example.com',
    workOrderNumber: 'WO-1',
    workOrderExternalIdentifier: null,
    workOrderExternalData: '{}',
    workOrderDescription: null,
    alternativeStartNumber: null,
    workOrderTypeName: 'Pick',
    requestId: 7,
    requestType: 1,
    requestExternalIdentifier: 'L-1',
    requestRemainingAmountInBaseUnitOfMeasure: 3,
    requestAmountInBaseUnitOfMeasure: 5,
    updateWorkOrderRequest: {
      id: 42,
      dueDate: '2026-12-01T08:00:00',
      itemRequests: [{ requestId: 7, itemNumber: 'ITEM-1', requestedAmount: 5, isCancelled: false, platformOnly: 'x' }],
      unknownPlatformField: { a: 1 },
    },
    itemNumber: 'ITEM-1',
    itemNames: [{ languageIsoCode: 'en', name: 'Screw', isDefault: true, extra: 1 }],
    itemUnitOfMeasure: 0,
    newPlatformField: 'x',
  });

  it('single-order step confirmation', () => {
    const body = {
      ...stepBody(),
      amountToConfirmPickingSummary: {
        locationName: 'A-01',
        containersBreakdown: [
          { containerCode: null, amountToConfirmInBaseUnitOfMeasure: 2, itemUnitOfMeasure: 0 },
          { containerCode: 'C-1', amountToConfirmInBaseUnitOfMeasure: 1.5, itemUnitOfMeasure: 4, extra: true },
        ],
      },
      amountToConfirmPlacingInBaseUnitOfMeasure: null,
    };
    ok('step-confirmation.schema.json', body);
    ok('step-confirmation.schema.json', { ...stepBody(), amountToConfirmPickingSummary: null, updateWorkOrderRequest: null });
    ok('step-confirmation.schema.json', {});
    bad('step-confirmation.schema.json', { ...body, requestId: '7' });
    bad('step-confirmation.schema.json', { ...body, requestType: 3 });
    bad('step-confirmation.schema.json', { ...body, amountToConfirmPlacingInBaseUnitOfMeasure: '2' });
    bad('step-confirmation.schema.json', {
      ...body,
      amountToConfirmPickingSummary: { containersBreakdown: [{ amountToConfirmInBaseUnitOfMeasure: '2' }] },
    });
    bad('step-confirmation.schema.json', { ...body, updateWorkOrderRequest: { id: '42' } });
    bad('step-confirmation.schema.json', { ...body, updateWorkOrderRequest: { itemRequests: [{ isCancelled: 'true' }] } });
    bad('step-confirmation.schema.json', { ...body, itemNames: [{ isDefault: 'yes' }] });
  });

  it('cart step confirmation', () => {
    const body = {
      ...stepBody(),
      amountToConfirmSummary: {
        locationName: 'A-01',
        containersBreakdown: [{ containerCode: 'C-1', amountToConfirmInBaseUnitOfMeasure: 2, itemUnitOfMeasure: 0 }],
      },
    };
    ok('cart-step-confirmation.schema.json', body);
    expect(schemas['cart-step-confirmation.schema.json'].properties.amountToConfirmPickingSummary).toBeUndefined();
    expect(schemas['cart-step-confirmation.schema.json'].properties.amountToConfirmPlacingInBaseUnitOfMeasure).toBeUndefined();
    bad('cart-step-confirmation.schema.json', {
      ...body,
      amountToConfirmSummary: { containersBreakdown: [{ itemUnitOfMeasure: 14 }] },
    });
  });

  it('code lookup query and path parameters', () => {
    ok('code-lookup-query.schema.json', { Code: 'WO-1', StorageName: 'Main' });
    ok('code-lookup-query.schema.json', {});
    bad('code-lookup-query.schema.json', { Code: 5 });
    ok('put-wall-code-path.schema.json', { code: 'TOTE-9' });
    bad('put-wall-code-path.schema.json', { code: '' });
    bad('put-wall-code-path.schema.json', {});
    ok('item-number-path.schema.json', { number: 'ITEM-1' });
    bad('item-number-path.schema.json', { number: '' });
    bad('item-number-path.schema.json', {});
  });
});

describe('inputs: event bodies', () => {
  it('Put Wall placement', () => {
    const body = {
      workOrderNumber: 'WO-1',
      itemNumber: 'ITEM-1',
      itemNames: [{ languageIsoCode: 'de', name: 'Schraube', isDefault: true }],
      completedAmount: 3,
      confirmedLocationName: 'PW-01',
      userEmail: 'op@example.com',
      externalData: null,
    };
    ok('put-wall-placement.schema.json', body);
    ok('put-wall-placement.schema.json', { ...body, unknownField: 'from a newer platform', nested: { a: 1 } });
    const errors = bad('put-wall-placement.schema.json', { ...body, completedAmount: '3' });
    expect(errors.some((e) => e.instancePath === '/completedAmount')).toBe(true);
    bad('put-wall-placement.schema.json', { ...body, itemNames: 'Schraube' });
  });

  it('cancel Put Wall item', () => {
    ok('cancel-put-wall-item.schema.json', { workOrderNumber: 'WO-1', itemNumber: 'ITEM-1', extra: 1 });
    bad('cancel-put-wall-item.schema.json', { workOrderNumber: 'WO-1', itemNumber: 1 });
  });

  it('cancel work order request', () => {
    const body = {
      workOrderNumber: 'WO-1',
      workOrderTypeName: 'Pick',
      workOrderExternalIdentifier: 'ERP-1',
      workOrderExternalData: null,
      requestExternalIdentifier: 'L-1',
      userEmail: 'op@example.com',
      request: {
        requestId: 7,
        itemNumber: 'ITEM-1',
        requestedAmountInBaseUnitOfMeasure: 5,
        completedAmountInBaseUnitOfMeasure: 2.5,
        isCancelled: true,
        type: 1,
        lotNumber: null,
        externalIdentifier: 'L-1',
        somethingElse: [1, 2],
      },
      extra: true,
    };
    ok('cancel-work-order-request.schema.json', body);
    bad('cancel-work-order-request.schema.json', { ...body, request: { ...body.request, requestId: 7.5 } });
    bad('cancel-work-order-request.schema.json', { ...body, request: { ...body.request, type: 5 } });
    bad('cancel-work-order-request.schema.json', { ...body, request: { ...body.request, isCancelled: 'true' } });
    bad('cancel-work-order-request.schema.json', { ...body, request: 'ITEM-1' });
  });

  it('relocate cart containers', () => {
    const body = [
      {
        containerCode: 'C-1',
        destinationLocationName: 'DOCK-1',
        workOrder: {
          number: 'WO-1',
          requests: [{ itemNumber: 'ITEM-1', requestedAmount: 5, completedAmount: 3, requestId: 7 }],
          extra: 1,
        },
        extra: 'x',
      },
    ];
    ok('relocate-cart-containers.schema.json', body);
    const wrong = structuredClone(body) as Json[];
    wrong[0].workOrder.requests[0].completedAmount = '3';
    const errors = bad('relocate-cart-containers.schema.json', wrong);
    expect(errors.some((e) => e.instancePath === '/0/workOrder/requests/0/completedAmount')).toBe(true);
    bad('relocate-cart-containers.schema.json', body[0]);
  });

  it('attach work order', () => {
    ok('attach-work-order.schema.json', { workOrderNumber: 'WO-1', containerCode: 'C-1', isAbandonedOrCancelled: false, extra: 1 });
    const errors = bad('attach-work-order.schema.json', { workOrderNumber: 'WO-1', containerCode: 'C-1', isAbandonedOrCancelled: 'yes' });
    expect(errors.some((e) => e.instancePath === '/isAbandonedOrCancelled')).toBe(true);
  });

  it('work order status', () => {
    ok('work-order-status.schema.json', { number: 'WO-1', status: 7, extra: 1 });
    bad('work-order-status.schema.json', { number: 'WO-1', status: 9 });
    bad('work-order-status.schema.json', { number: 'WO-1', status: '3' });
  });
});
