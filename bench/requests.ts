/**
 * The requests the benchmarks send, shared by the harness and the equivalence test, so the test checks
 * exactly what is measured.
 */
export interface BenchRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
}

export const CODE_LOOKUP: BenchRequest = { method: 'GET', path: '/WorkOrders/Code?Code=SO-1001&StorageName=WH-MAIN' };
/** Case 7's cheap request: a static answer, so its latency is the time it waited for the event loop. */
export const EXPORT_COLUMNS: BenchRequest = { method: 'GET', path: '/WorkOrders/WorkOrderExportColumns' };
export const ALL_ORDERS: BenchRequest = { method: 'GET', path: '/WorkOrders' };
export const CONFIRM_STEP: BenchRequest = {
  method: 'POST',
  path: '/WorkOrderProcessing/ConfirmWorkOrderStep',
  body: {
    storageName: 'WH-MAIN', userEmail: 'picker@example.com', workOrderNumber: 'SO-1001', workOrderExternalIdentifier: '50001',
    requestId: 7001, requestType: 1, requestExternalIdentifier: '50001-10', requestRemainingAmountInBaseUnitOfMeasure: 0,
    requestAmountInBaseUnitOfMeasure: 12, itemNumber: 'A-100', itemUnitOfMeasure: 0,
    updateWorkOrderRequest: { id: 9001 },
    amountToConfirmPickingSummary: { locationName: 'A-01-02', containersBreakdown: [{ containerCode: 'C-100', amountToConfirmInBaseUnitOfMeasure: 12, itemUnitOfMeasure: 0 }] },
  },
};
export const PUT_WALL_EVENT: BenchRequest = {
  method: 'POST',
  path: '/WorkOrders/ForPutWall',
  body: { workOrderNumber: 'SO-1001', itemNumber: 'A-100', itemNames: [], completedAmount: 4, confirmedLocationName: 'PW-01-03', userEmail: 'sorter@example.com', externalData: null },
};

/** The export request of case 2: one element per order, values read from externalData. */
export function exportValuesRequest(orders: number): BenchRequest {
  const body = Array.from({ length: orders }, (_, i) => ({
    workOrderNumber: `SO-${300000 + i}`,
    externalData: JSON.stringify({ customerName: `Customer ${i % 997}`, route: `R${String(1 + (i % 24)).padStart(2, '0')}`, priority: i % 7 === 0 ? 'high' : 'normal' }),
    deliveryNoteExternalData: null,
    deliveryAddressExternalData: null,
  }));
  return { method: 'POST', path: '/WorkOrders/WorkOrderExportValues', body };
}
