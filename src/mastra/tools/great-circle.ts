/** @module great-circle — distances on the Earth's surface between WGS 84 coordinates. */

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** Mean Earth radius (IUGG), in km. */
const EARTH_RADIUS_KM = 6371.0088;

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** Haversine distance in km; on a sphere, so within about 0.5 % of the true ellipsoidal distance. */
export function haversineKm(from: Coordinates, to: Coordinates): number {
  const dLatitude = radians(to.latitude - from.latitude);
  const dLongitude = radians(to.longitude - from.longitude);
  const a =
    Math.sin(dLatitude / 2) ** 2 +
    Math.cos(radians(from.latitude)) * Math.cos(radians(to.latitude)) * Math.sin(dLongitude / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}
