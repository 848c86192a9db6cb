DROP TABLE maintenance;
DROP TABLE collab_pay_types;
DROP TABLE collabs;
DROP TABLE provider_pay_types;
DROP TABLE pay_types;
DROP TABLE providers;
