-- One toll tariff: a toll geofence and vehicle class from a local day (valid_to inclusive or open).
INSERT INTO price_tolls
VALUES ($account, $geofence_id, $vehicle_class, $valid_from::DATE, $valid_to::DATE, $charge);
