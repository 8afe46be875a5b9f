/**
 * The operation the outbox tests serve: a put-wall placement stored in the outbox (in order per work
 * order) and delivered as POST /placements with the work order's number. Indented to stand under a
 * mapping's `operations:`.
 */
export const OUTBOX_PLACEMENT = `  ConfirmPutWallPlacement:
    delivery: outbox
    outbox: { orderingKey: input.workOrderNumber }
    calls:
      - name: placement
        method: POST
        path: /placements
        body: '{ "docNo": input.workOrderNumber }'
`;
