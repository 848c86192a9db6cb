-- Nothing to undo: the constraints stay, validated.
SELECT 1;
