-- An exception's rows may span days (a duplicate debit of 23:50 and 00:05):
-- last_day is the day of its last row in the run that last found it (day
-- the first), so that a run whose period ends before it never resolves it
-- (evidence's covers). '' for an exception found before: its day.
ALTER TABLE exceptions ADD COLUMN last_day TEXT NOT NULL DEFAULT '';
