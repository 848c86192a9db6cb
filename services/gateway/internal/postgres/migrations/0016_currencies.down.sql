DROP TABLE currency_rates;
DROP TABLE currencies;
