-- Nothing to undo: 0025's down drops the keys.
SELECT 1;
