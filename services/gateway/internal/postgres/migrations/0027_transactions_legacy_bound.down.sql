-- Nothing to undo: 0025's down drops the constraint.
SELECT 1;
