/**
 * Step confirmations and item routes through mappings/example.yaml against the example ERP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErp, type RunningErp } from '../../examples/erp';
import { loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';
import { expectResult, expectSuccess } from '../support/envelope';

let erp: RunningErp;
let engine: RunningEngine;

beforeAll(async () => {
  erp = await startErp({ port: 0 });
  engine = await startEngine(loadExampleMapping(erp.url));
});
afterAll(async () => {
  await engine.close();
  await erp.close();
});

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function lastConfirmation(): unknown {
  return erp.state.events.filter((event) => event.type === 'pick-confirmation').at(-1)?.body;
}

const step = (itemNumber: string, requested: number, remaining: number) => ({
  storageName: 'WH-MAIN', userEmail: 'op@example.com', workOrderNumber: 'SO-1003', workOrderExternalIdentifier: '50003',
  requestId: 7, requestType: 1, requestExternalIdentifier: '50003-10', itemNumber, itemUnitOfMeasure: 7,
  requestAmountInBaseUnitOfMeasure: requested, requestRemainingAmountInBaseUnitOfMeasure: remaining,
  updateWorkOrderRequest: { id: 99, description: 'Workshop supplies Leipzig' },
});

describe('POST /WorkOrderProcessing/ConfirmWorkOrderStep', () => {
  it('answers Success (1) with updateWorkOrderRequest null when the ERP has no correction', async () => {
    const reply = await engine.post('/WorkOrderProcessing/ConfirmWorkOrderStep', {
      ...step('A-100', 100, 40),
      amountToConfirmPickingSummary: { locationName: 'A-01-02', containersBreakdown: [{ containerCode: null, amountToConfirmInBaseUnitOfMeasure: 60, itemUnitOfMeasure: 0 }] },
    });
    expectSuccess(reply, 'ConfirmWorkOrderStep', 1);
    expect(reply.body.data).toEqual({ updateWorkOrderRequest: null });
    expect(lastConfirmation()).toEqual({ docNo: 'SO-1003', requestId: 7, article: 'A-100', quantity: 100, confirmed: 60 });
  });

  it('answers Success (1) with the ERP correction as an update model (A-300 requested above the 3 available)', async () => {
    const reply = await engine.post('/WorkOrderProcessing/ConfirmWorkOrderStep', { ...step('A-300', 5, 0), amountToConfirmPlacingInBaseUnitOfMeasure: 5 });
    expectSuccess(reply, 'ConfirmWorkOrderStep', 1);
    expect(reply.body.data).toEqual({
      updateWorkOrderRequest: {
        id: 99, description: 'Short stock: A-300 reduced',
        itemRequests: [{ requestId: 7, itemNumber: 'A-300', requestedAmount: 3, isCancelled: false }],
      },
    });
  });

  it('A-300 within the available stock gives no correction', async () => {
    const reply = await engine.post('/WorkOrderProcessing/ConfirmWorkOrderStep', step('A-300', 3, 0));
    expectSuccess(reply, 'ConfirmWorkOrderStep', 1);
    expect(reply.body.data).toEqual({ updateWorkOrderRequest: null });
  });
});

describe('POST /CartWorkOrderProcessing/ConfirmWorkOrderStep', () => {
  it('sums the container breakdown of amountToConfirmSummary and answers the correction', async () => {
    const reply = await engine.post('/CartWorkOrderProcessing/ConfirmWorkOrderStep', {
      ...step('A-300', 4, 0),
      amountToConfirmSummary: {
        locationName: 'D-02-04',
        containersBreakdown: [
          { containerCode: 'C-100', amountToConfirmInBaseUnitOfMeasure: 3, itemUnitOfMeasure: 7 },
          { containerCode: null, amountToConfirmInBaseUnitOfMeasure: 1, itemUnitOfMeasure: 7 },
        ],
      },
    });
    expectSuccess(reply, 'ConfirmCartWorkOrderStep', 1);
    expect(lastConfirmation()).toEqual({ docNo: 'SO-1003', requestId: 7, article: 'A-300', quantity: 4, confirmed: 4 });
    expect(reply.body.data).toEqual({
      updateWorkOrderRequest: { id: 99, description: 'Short stock: A-300 reduced', itemRequests: [{ requestId: 7, itemNumber: 'A-300', requestedAmount: 3, isCancelled: false }] },
    });
  });
});

describe('GET /Items/{number}', () => {
  it('answers Succeed (1) with the item master data', async () => {
    const reply = await engine.get('/Items/A-400');
    expectSuccess(reply, 'GetItem', 1);
    expect(reply.body.data).toEqual({
      number: 'A-400', name: 'Zement CEM I 42,5 R', description: 'Portlandzement, Sackware 25 kg', languageIsoCode: 'de',
      minimumStockQuantity: 500, weight: 1, height: 10, width: 40, length: 60, volume: 0.68,
      manufacturer: 'Baustoff Süd GmbH', unitOfMeasure: 4, externalIdentifier: 'ART-400',
    });
  });

  it('answers ItemDoesNotExist (2) with the ERP message for an unknown item', async () => {
    const reply = await engine.get('/Items/A-999');
    expectResult(reply, 'GetItem', 'ItemDoesNotExist', 2);
    expect(reply.body).toMatchObject({ externalMessage: 'Article A-999 not found', validationStatus: null, data: null });
  });
});

describe('GET /Items/IntegrateImage/{number}', () => {
  it('answers Success (5) with the PNG bytes as Base64', async () => {
    const reply = await engine.get('/Items/IntegrateImage/A-100');
    expectSuccess(reply, 'GetItemImage', 5);
    const bytes = Buffer.from(reply.body.data as string, 'base64');
    expect(bytes.toString('base64')).toBe(reply.body.data); // strict Base64, nothing lost in decoding
    expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  });

  it('answers ImageDoesNotExist (4) for an item without image (A-500)', async () => {
    const reply = await engine.get('/Items/IntegrateImage/A-500');
    expectResult(reply, 'GetItemImage', 'ImageDoesNotExist', 4);
    expect(reply.body).toMatchObject({ externalMessage: null, validationStatus: null, data: null });
  });
});

describe('concurrent requests share the compiled mapping', () => {
  it('each answer belongs to its own request', async () => {
    const numbers = ['A-100', 'A-200', 'A-300', 'A-400', 'A-600'];
    const replies = await Promise.all(Array.from({ length: 4 }, () => numbers).flat().map((number) => engine.get(`/Items/${number}`)));
    replies.forEach((reply, index) => {
      expectSuccess(reply, 'GetItem', 1);
      expect((reply.body.data as { number: string }).number).toBe(numbers[index % numbers.length]);
    });
  });
});
