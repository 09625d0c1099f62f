/**
 * @module destination-catalogue
 *
 * The curated catalogue of spiritual destinations, kept as JSON so places can be reviewed and added
 * without touching code, and validated against the one destination schema when the module loads:
 * a malformed entry stops the service at start-up instead of surfacing mid-conversation.
 */
import { z } from 'zod';
import catalogue from './data/spiritual-destinations.json' with { type: 'json' };
import { DestinationSchema, type Destination } from './destination-schema.ts';

const CatalogueSchema = z.array(DestinationSchema).superRefine((destinations, context) => {
  const seen = new Set<string>();
  for (const [index, { id }] of destinations.entries()) {
    if (seen.has(id)) context.addIssue({ code: 'custom', path: [index, 'id'], message: `Duplicate id ${id}` });
    seen.add(id);
  }
});

export const DESTINATIONS: readonly Destination[] = Object.freeze(CatalogueSchema.parse(catalogue));
