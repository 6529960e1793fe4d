/**
 * Bodies and responses of the allocation change (`PATCH /experiments/:id`) and its
 * read-only preview (`POST /experiments/:id/allocation-diff`), shared by the server and the CLI.
 */
import { Type, type Static } from '@sinclair/typebox';

export const AllocationInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: "An existing variant's name" }),
    traffic_allocation: Type.Number({ description: 'Percent of enrolled users; all variants sum to 100' }),
  },
  { additionalProperties: false },
);

export const AllocationDiffRequestSchema = Type.Object(
  {
    variants: Type.Array(AllocationInputSchema, {
      minItems: 2,
      description:
        "Every variant of the experiment, by name, with its new allocation; the variants' order (and so their bucket ranges' order) stays as created",
    }),
  },
  { additionalProperties: false, title: 'AllocationDiffRequest' },
);
export type AllocationDiffRequest = Static<typeof AllocationDiffRequestSchema>;

export const AllocationChangeSchema = Type.Object(
  {
    variants: AllocationDiffRequestSchema.properties.variants,
    force: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Change the allocations even though already-assigned users would move (they keep their recorded variant)',
      }),
    ),
  },
  { additionalProperties: false, title: 'AllocationChange' },
);
export type AllocationChange = Static<typeof AllocationChangeSchema>;

export const AllocationDiffSchema = Type.Object(
  {
    buckets: Type.Array(
      Type.Object({
        start: Type.Integer({ description: 'First bucket of the range' }),
        end: Type.Integer({ description: 'One past the last bucket of the range' }),
        from: Type.String(),
        to: Type.String(),
      }),
      { description: 'Bucket ranges (0..99) that change variant' },
    ),
    buckets_moving: Type.Integer(),
    moves: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), users: Type.Integer() }), {
      description: 'Assigned users whose bucket the proposed allocations give to another variant than their recorded one',
    }),
    users_assigned: Type.Integer(),
    users_moving: Type.Integer(),
  },
  { title: 'AllocationDiff' },
);
export type AllocationDiffResult = Static<typeof AllocationDiffSchema>;
