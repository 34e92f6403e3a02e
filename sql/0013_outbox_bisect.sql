-- regtrack schema, part 13: a regression's mails by its bisect too.
--
-- GET /api/v1/regressions/{id}/report (ST_REGRESSION_REPORT_JSON) finds the
-- mails of a regression by regression_id OR by its bisect's bisect_id; with
-- only outbox_regression the OR read the whole outbox for every page view.
-- With both indexes the join is a BitmapOr of two index scans.
CREATE INDEX outbox_bisect ON outbox (bisect_id, id);
