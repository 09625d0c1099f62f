/**
 * @module destination-catalogue
 *
 * The curated catalogue of spiritual destinations, kept as JSON so places can be reviewed and added
 * without touching code, and validated against the one destination schema when the module loads:
 * a malformed entry stops the service at start-up instead of surfacing mid-conversation.
 */
import { z } from 'zod';
import catalogue from './data/spiritual-destinations.json' with { type: 'json' };
import { normalizeName } from './countries.ts';
import { DestinationSchema, type Destination } from './destination-schema.ts';

const CatalogueSchema = z.array(DestinationSchema).superRefine((destinations, context) => {
  const seen = new Set<string>();
  for (const [index, { id }] of destinations.entries()) {
    if (seen.has(id)) context.addIssue({ code: 'custom', path: [index, 'id'], message: `Duplicate id ${id}` });
    seen.add(id);
  }
});

export const DESTINATIONS: readonly Destination[] = Object.freeze(CatalogueSchema.parse(catalogue));

/** Each catalogue's destinations by normalised name and alias, indexed once. */
const nameIndexes = new WeakMap<readonly Destination[], ReadonlyMap<string, Destination>>();

/**
 * The destination with that name or alias (case, accents and a leading "the" ignored), if there is one. Of two
 * places of one name, the first in the catalogue, as a search would find it.
 */
export function destinationNamed(name: string, destinations: readonly Destination[] = DESTINATIONS): Destination | undefined {
  let index = nameIndexes.get(destinations);
  if (!index) {
    index = new Map(
      [...destinations]
        .reverse()
        .flatMap((destination) => [destination.name, ...(destination.aliases ?? [])].map((alias) => [nameKey(alias), destination] as const)),
    );
    nameIndexes.set(destinations, index);
  }
  return index.get(nameKey(name));
}

function nameKey(name: string): string {
  return normalizeName(name).replace(/^the /, '');
}
