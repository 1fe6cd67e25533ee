"""Golden test of the bundled example: every node and edge of fixtures/pilot.

The expected sets below were checked by hand against the PHP sources; a change
in extraction or resolution shows up here as a precise difference.
"""

from __future__ import annotations

from pathlib import Path

from ragraf import config
from ragraf.store import manifest
from ragraf.store.graph import GraphStore
from ragraf.store.ranges import rev_no

NODES = {
    ("class", "App\\Billing\\Invoice", "src/Billing/Invoice.php", 11, 45),
    ("class", "App\\Billing\\Model", "src/Billing/Model.php", 6, 16),
    ("class", "App\\Billing\\PaymentGateway", "src/Billing/PaymentGateway.php", 9, 20),
    ("class", "App\\Billing\\Report", "src/Billing/Report.php", 4, 28),
    ("class", "App\\Core\\Database", "src/Core/Database.php", 7, 31),
    ("class", "App\\Core\\FileLogger", "src/Core/Logger.php", 9, 15),
    ("constant", "App\\Billing\\Invoice::STATUS_PAID", "src/Billing/Invoice.php", 15, 15),
    ("doc", "README.md", "README.md", 1, 13),
    ("doc_section", "README.md#charging-an-invoice", "README.md", 5, 10),
    ("doc_section", "README.md#pilot-billing-app", "README.md", 1, 4),
    ("doc_section", "README.md#reports", "README.md", 11, 13),
    ("file", "db/migrations/001_invoices.sql", "db/migrations/001_invoices.sql", 1, 11),
    ("file", "index.php", "index.php", 1, 18),
    ("file", "plugins/paypal.php", "plugins/paypal.php", 1, 6),
    ("file", "plugins/stripe.php", "plugins/stripe.php", 1, 6),
    ("file", "src/Billing/Invoice.php", "src/Billing/Invoice.php", 1, 45),
    ("file", "src/Billing/Model.php", "src/Billing/Model.php", 1, 16),
    ("file", "src/Billing/PaymentGateway.php", "src/Billing/PaymentGateway.php", 1, 20),
    ("file", "src/Billing/Report.php", "src/Billing/Report.php", 1, 28),
    ("file", "src/Core/Database.php", "src/Core/Database.php", 1, 31),
    ("file", "src/Core/Logger.php", "src/Core/Logger.php", 1, 25),
    ("file", "src/bootstrap.php", "src/bootstrap.php", 1, 22),
    ("function", "format_money", "src/bootstrap.php", 19, 22),
    ("function", "paypal_register", "plugins/paypal.php", 3, 6),
    ("function", "stripe_register", "plugins/stripe.php", 3, 6),
    ("http_endpoint", "$_GET['action']", None, None, None),
    ("http_endpoint", "$_GET['month']", None, None, None),
    ("http_endpoint", "$_POST['invoice_id']", None, None, None),
    ("interface", "App\\Billing\\Chargeable", "src/Billing/PaymentGateway.php", 4, 7),
    ("interface", "App\\Core\\LoggerInterface", "src/Core/Logger.php", 4, 7),
    ("method", "App\\Billing\\Chargeable::charge", "src/Billing/PaymentGateway.php", 6, 6),
    ("method", "App\\Billing\\Invoice::__construct", "src/Billing/Invoice.php", 17, 20),
    ("method", "App\\Billing\\Invoice::charge", "src/Billing/Invoice.php", 29, 39),
    ("method", "App\\Billing\\Invoice::find", "src/Billing/Invoice.php", 22, 27),
    ("method", "App\\Billing\\Invoice::total", "src/Billing/Invoice.php", 41, 44),
    ("method", "App\\Billing\\Model::save", "src/Billing/Model.php", 10, 13),
    ("method", "App\\Billing\\Model::total", "src/Billing/Model.php", 15, 15),
    ("method", "App\\Billing\\PaymentGateway::create", "src/Billing/PaymentGateway.php", 11, 14),
    ("method", "App\\Billing\\PaymentGateway::pay", "src/Billing/PaymentGateway.php", 16, 19),
    ("method", "App\\Billing\\Report::header", "src/Billing/Report.php", 24, 27),
    ("method", "App\\Billing\\Report::monthly", "src/Billing/Report.php", 6, 22),
    ("method", "App\\Core\\Database::__call", "src/Core/Database.php", 27, 30),
    ("method", "App\\Core\\Database::__construct", "src/Core/Database.php", 11, 13),
    ("method", "App\\Core\\Database::connect", "src/Core/Database.php", 15, 19),
    ("method", "App\\Core\\Database::query", "src/Core/Database.php", 21, 24),
    ("method", "App\\Core\\FileLogger::write", "src/Core/Logger.php", 11, 14),
    ("method", "App\\Core\\Loggable::log", "src/Core/Logger.php", 21, 24),
    ("method", "App\\Core\\LoggerInterface::write", "src/Core/Logger.php", 6, 6),
    ("namespace", "App\\Billing", "src/Billing/Invoice.php", 2, 2),
    ("namespace", "App\\Billing", "src/Billing/Model.php", 2, 2),
    ("namespace", "App\\Billing", "src/Billing/PaymentGateway.php", 2, 2),
    ("namespace", "App\\Billing", "src/Billing/Report.php", 2, 2),
    ("namespace", "App\\Core", "src/Core/Database.php", 2, 2),
    ("namespace", "App\\Core", "src/Core/Logger.php", 2, 2),
    ("property", "App\\Billing\\Invoice::$db", "src/Billing/Invoice.php", 17, 17),
    ("property", "App\\Billing\\Invoice::$gateway", "src/Billing/Invoice.php", 17, 17),
    ("property", "App\\Billing\\Model::$db", "src/Billing/Model.php", 8, 8),
    ("property", "App\\Core\\Database::$dsn", "src/Core/Database.php", 11, 11),
    ("property", "App\\Core\\Database::$instance", "src/Core/Database.php", 9, 9),
    ("property", "App\\Core\\Loggable::$logger", "src/Core/Logger.php", 19, 19),
    ("trait", "App\\Core\\Loggable", "src/Core/Logger.php", 17, 25),
    # the schema from db/migrations/001_invoices.sql (no live database configured):
    # tables and columns carry the line of their CREATE TABLE
    ("db_table", "invoices", "db/migrations/001_invoices.sql", 1, 1),
    ("db_column", "invoices.id", "db/migrations/001_invoices.sql", 1, 1),
    ("db_column", "invoices.amount", "db/migrations/001_invoices.sql", 1, 1),
    ("db_column", "invoices.status", "db/migrations/001_invoices.sql", 1, 1),
    ("db_column", "invoices.created_at", "db/migrations/001_invoices.sql", 1, 1),
    ("db_table", "payments", "db/migrations/001_invoices.sql", 7, 7),
    ("db_column", "payments.id", "db/migrations/001_invoices.sql", 7, 7),
    ("db_column", "payments.invoice_id", "db/migrations/001_invoices.sql", 7, 7),
    ("db_column", "payments.amount", "db/migrations/001_invoices.sql", 7, 7),
    # SQL in strings: "SELECT id, amount FROM invoices WHERE id = $id", 'SELECT * FROM payments',
    # 'UPDATE invoices SET status = ? WHERE id = ?' and the heredoc of Report::monthly (lines 9-14)
    ("sql_literal", "App\\Billing\\Invoice::find#sql@25", "src/Billing/Invoice.php", 25, 25),
    ("sql_literal", "App\\Billing\\Invoice::charge#sql@37", "src/Billing/Invoice.php", 37, 37),
    ("sql_literal", "App\\Billing\\Model::save#sql@12", "src/Billing/Model.php", 12, 12),
    ("sql_literal", "App\\Billing\\Report::monthly#sql@9", "src/Billing/Report.php", 9, 14),
}

# every edge except contains / defines: (kind, src, dst, evidence, provenance, confidence)
EDGES = {
    ("calls", "index.php", "App\\Billing\\Invoice::find", "index.php:11", "stated", 1.0),
    ("calls", "index.php", "App\\Billing\\Invoice::charge", "index.php:12", "stated", 1.0),
    ("calls", "index.php", "App\\Billing\\Report::monthly", "index.php:15", "stated", 1.0),
    ("calls", "index.php", "format_money", "index.php:17", "stated", 1.0),
    (
        "calls",
        "App\\Billing\\Invoice::find",
        "App\\Core\\Database::connect",
        "src/Billing/Invoice.php:24",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::find",
        "App\\Core\\Database::query",
        "src/Billing/Invoice.php:25",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::find",
        "App\\Billing\\Invoice::__construct",
        "src/Billing/Invoice.php:26",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::find",
        "App\\Billing\\PaymentGateway::create",
        "src/Billing/Invoice.php:26",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::charge",
        "App\\Billing\\PaymentGateway::pay",
        "src/Billing/Invoice.php:31",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::charge",
        "App\\Billing\\Model::save",
        "src/Billing/Invoice.php:34",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::charge",
        "App\\Core\\Loggable::log",
        "src/Billing/Invoice.php:35",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::total",
        "App\\Billing\\PaymentGateway::pay",
        "src/Billing/Invoice.php:43",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Invoice::total",
        "App\\Billing\\PaymentGateway::create",
        "src/Billing/Invoice.php:43",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Billing\\Model::save",
        "App\\Core\\Database::query",
        "src/Billing/Model.php:12",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Core\\Database::connect",
        "App\\Core\\Database::__construct",
        "src/Core/Database.php:17",
        "stated",
        1.0,
    ),
    (
        "calls",
        "App\\Core\\Loggable::log",
        "App\\Core\\LoggerInterface::write",
        "src/Core/Logger.php:23",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/bootstrap.php",
        "App\\Core\\Database::connect",
        "src/bootstrap.php:10",
        "stated",
        1.0,
    ),
    (
        "calls_heuristic",
        "App\\Billing\\Invoice::charge",
        "App\\Core\\Database::__call",
        "src/Billing/Invoice.php:37",
        "derived",
        0.3,
    ),
    (
        "calls_heuristic",
        "App\\Billing\\Report::monthly",
        "App\\Core\\Database::query",
        "src/Billing/Report.php:15",
        "derived",
        0.85,  # global $db: every assignment is `new Database` (global_single_type)
    ),
    (
        "calls_heuristic",
        "App\\Billing\\Report::monthly",
        "App\\Billing\\Report::header",
        "src/Billing/Report.php:17",
        "derived",
        0.4,
    ),
    (
        "calls_heuristic",
        "App\\Billing\\Report::monthly",
        "format_money",
        "src/Billing/Report.php:19",
        "derived",
        0.4,
    ),
    (
        "documented_by",
        "src/Billing/Invoice.php",
        "README.md#charging-an-invoice",
        "README.md:9",
        "stated",
        1.0,
    ),
    (
        "extends",
        "App\\Billing\\Invoice",
        "App\\Billing\\Model",
        "src/Billing/Invoice.php:11",
        "stated",
        1.0,
    ),
    ("flows_to", "$_GET['action']", "index.php", "index.php:8", "stated", 1.0),
    ("flows_to", "$_POST['invoice_id']", "index.php", "index.php:11", "stated", 1.0),
    ("flows_to", "$_GET['month']", "index.php", "index.php:15", "stated", 1.0),
    (
        "implements",
        "App\\Billing\\Invoice",
        "App\\Billing\\Chargeable",
        "src/Billing/Invoice.php:11",
        "stated",
        1.0,
    ),
    (
        "implements",
        "App\\Core\\FileLogger",
        "App\\Core\\LoggerInterface",
        "src/Core/Logger.php:9",
        "stated",
        1.0,
    ),
    ("imports", "index.php", "src/bootstrap.php", "index.php:3", "stated", 1.0),
    ("imports", "index.php", "App\\Billing\\Invoice", "index.php:5", "stated", 1.0),
    ("imports", "index.php", "App\\Billing\\Report", "index.php:6", "stated", 1.0),
    (
        "imports",
        "src/Billing/Invoice.php",
        "App\\Core\\Database",
        "src/Billing/Invoice.php:4",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/Billing/Invoice.php",
        "App\\Core\\FileLogger",
        "src/Billing/Invoice.php:5",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/Billing/Invoice.php",
        "App\\Core\\Loggable",
        "src/Billing/Invoice.php:6",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/Billing/Model.php",
        "App\\Core\\Database",
        "src/Billing/Model.php:4",
        "stated",
        1.0,
    ),
    ("imports", "src/bootstrap.php", "src/Core/Database.php", "src/bootstrap.php:5", "stated", 1.0),
    ("imports", "src/bootstrap.php", "src/Core/Logger.php", "src/bootstrap.php:6", "stated", 1.0),
    ("imports", "src/bootstrap.php", "App\\Core\\Database", "src/bootstrap.php:8", "stated", 1.0),
    ("imports", "src/bootstrap.php", "plugins/stripe.php", "src/bootstrap.php:13", "derived", 0.4),
    ("imports", "src/bootstrap.php", "plugins/paypal.php", "src/bootstrap.php:13", "derived", 0.4),
    ("instantiates", "index.php", "App\\Billing\\Report", "index.php:14", "stated", 1.0),
    (
        "instantiates",
        "App\\Billing\\Invoice::__construct",
        "App\\Core\\FileLogger",
        "src/Billing/Invoice.php:19",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "App\\Billing\\Invoice::find",
        "App\\Billing\\Invoice",
        "src/Billing/Invoice.php:26",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "App\\Billing\\PaymentGateway::create",
        "App\\Billing\\PaymentGateway",
        "src/Billing/PaymentGateway.php:13",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "App\\Core\\Database::connect",
        "App\\Core\\Database",
        "src/Core/Database.php:17",
        "stated",
        1.0,
    ),
    (
        "mentions",
        "README.md#charging-an-invoice",
        "App\\Billing\\Invoice::charge",
        "README.md:7",
        "stated",
        1.0,
    ),
    (
        "mentions",
        "README.md#charging-an-invoice",
        "App\\Billing\\PaymentGateway",
        "README.md:7",
        "derived",
        0.6,
    ),
    ("mentions", "README.md#reports", "App\\Billing\\Report", "README.md:13", "derived", 0.6),
    (
        "overrides",
        "App\\Billing\\Invoice::charge",
        "App\\Billing\\Chargeable::charge",
        "src/Billing/Invoice.php:29",
        "stated",
        1.0,
    ),
    (
        "overrides",
        "App\\Billing\\Invoice::total",
        "App\\Billing\\Model::total",
        "src/Billing/Invoice.php:41",
        "stated",
        1.0,
    ),
    (
        "overrides",
        "App\\Core\\FileLogger::write",
        "App\\Core\\LoggerInterface::write",
        "src/Core/Logger.php:11",
        "stated",
        1.0,
    ),
    (
        "references",
        "App\\Billing\\Invoice::charge",
        "App\\Billing\\Invoice::STATUS_PAID",
        "src/Billing/Invoice.php:33",
        "stated",
        1.0,
    ),
    (
        "references",
        "App\\Billing\\Report::monthly",
        "App\\Billing\\Report",
        "src/Billing/Report.php:17",
        "stated",
        1.0,
    ),
    (
        "references",
        "App\\Billing\\Report::monthly",
        "App\\Billing\\Report::header",
        "src/Billing/Report.php:17",
        "stated",
        1.0,
    ),
    (
        "uses_trait",
        "App\\Billing\\Invoice",
        "App\\Core\\Loggable",
        "src/Billing/Invoice.php:13",
        "stated",
        1.0,
    ),
    # exact table names with values only ($id, ?) are stated; SELECT * is derived (sql_dynamic 0.40)
    (
        "queries",
        "App\\Billing\\Invoice::find",
        "invoices",
        "src/Billing/Invoice.php:25",
        "stated",
        1.0,
    ),
    (
        "references_table",
        "App\\Billing\\Invoice::find#sql@25",
        "invoices",
        "src/Billing/Invoice.php:25",
        "stated",
        1.0,
    ),
    (
        "queries",
        "App\\Billing\\Invoice::charge",
        "payments",
        "src/Billing/Invoice.php:37",
        "derived",
        0.4,
    ),
    (
        "references_table",
        "App\\Billing\\Invoice::charge#sql@37",
        "payments",
        "src/Billing/Invoice.php:37",
        "derived",
        0.4,
    ),
    ("queries", "App\\Billing\\Model::save", "invoices", "src/Billing/Model.php:12", "stated", 1.0),
    (
        "references_table",
        "App\\Billing\\Model::save#sql@12",
        "invoices",
        "src/Billing/Model.php:12",
        "stated",
        1.0,
    ),
    (
        "queries",
        "App\\Billing\\Report::monthly",
        "invoices",
        "src/Billing/Report.php:9",
        "stated",
        1.0,
    ),
    (
        "references_table",
        "App\\Billing\\Report::monthly#sql@9",
        "invoices",
        "src/Billing/Report.php:9",
        "stated",
        1.0,
    ),
}

STRUCTURE = {
    ("contains", "README.md", "README.md#pilot-billing-app", "README.md:1"),
    ("contains", "README.md", "README.md#charging-an-invoice", "README.md:5"),
    ("contains", "README.md", "README.md#reports", "README.md:11"),
    ("contains", "plugins/paypal.php", "paypal_register", "plugins/paypal.php:3"),
    ("contains", "plugins/stripe.php", "stripe_register", "plugins/stripe.php:3"),
    ("contains", "src/Billing/Invoice.php", "App\\Billing", "src/Billing/Invoice.php:2"),
    ("contains", "src/Billing/Invoice.php", "App\\Billing\\Invoice", "src/Billing/Invoice.php:11"),
    (
        "contains",
        "App\\Billing\\Invoice",
        "App\\Billing\\Invoice::STATUS_PAID",
        "src/Billing/Invoice.php:15",
    ),
    (
        "contains",
        "App\\Billing\\Invoice",
        "App\\Billing\\Invoice::$db",
        "src/Billing/Invoice.php:17",
    ),
    (
        "contains",
        "App\\Billing\\Invoice",
        "App\\Billing\\Invoice::__construct",
        "src/Billing/Invoice.php:17",
    ),
    (
        "contains",
        "App\\Billing\\Invoice",
        "App\\Billing\\Invoice::$gateway",
        "src/Billing/Invoice.php:17",
    ),
    (
        "contains",
        "App\\Billing\\Invoice",
        "App\\Billing\\Invoice::find",
        "src/Billing/Invoice.php:22",
    ),
    (
        "contains",
        "App\\Billing\\Invoice",
        "App\\Billing\\Invoice::charge",
        "src/Billing/Invoice.php:29",
    ),
    (
        "contains",
        "App\\Billing\\Invoice",
        "App\\Billing\\Invoice::total",
        "src/Billing/Invoice.php:41",
    ),
    ("contains", "src/Billing/Model.php", "App\\Billing", "src/Billing/Model.php:2"),
    ("contains", "src/Billing/Model.php", "App\\Billing\\Model", "src/Billing/Model.php:6"),
    ("contains", "App\\Billing\\Model", "App\\Billing\\Model::$db", "src/Billing/Model.php:8"),
    ("contains", "App\\Billing\\Model", "App\\Billing\\Model::save", "src/Billing/Model.php:10"),
    ("contains", "App\\Billing\\Model", "App\\Billing\\Model::total", "src/Billing/Model.php:15"),
    (
        "contains",
        "src/Billing/PaymentGateway.php",
        "App\\Billing",
        "src/Billing/PaymentGateway.php:2",
    ),
    (
        "contains",
        "src/Billing/PaymentGateway.php",
        "App\\Billing\\Chargeable",
        "src/Billing/PaymentGateway.php:4",
    ),
    (
        "contains",
        "App\\Billing\\Chargeable",
        "App\\Billing\\Chargeable::charge",
        "src/Billing/PaymentGateway.php:6",
    ),
    (
        "contains",
        "src/Billing/PaymentGateway.php",
        "App\\Billing\\PaymentGateway",
        "src/Billing/PaymentGateway.php:9",
    ),
    (
        "contains",
        "App\\Billing\\PaymentGateway",
        "App\\Billing\\PaymentGateway::create",
        "src/Billing/PaymentGateway.php:11",
    ),
    (
        "contains",
        "App\\Billing\\PaymentGateway",
        "App\\Billing\\PaymentGateway::pay",
        "src/Billing/PaymentGateway.php:16",
    ),
    ("contains", "src/Billing/Report.php", "App\\Billing", "src/Billing/Report.php:2"),
    ("contains", "src/Billing/Report.php", "App\\Billing\\Report", "src/Billing/Report.php:4"),
    (
        "contains",
        "App\\Billing\\Report",
        "App\\Billing\\Report::monthly",
        "src/Billing/Report.php:6",
    ),
    (
        "contains",
        "App\\Billing\\Report",
        "App\\Billing\\Report::header",
        "src/Billing/Report.php:24",
    ),
    ("contains", "src/Core/Database.php", "App\\Core", "src/Core/Database.php:2"),
    ("contains", "src/Core/Database.php", "App\\Core\\Database", "src/Core/Database.php:7"),
    (
        "contains",
        "App\\Core\\Database",
        "App\\Core\\Database::$instance",
        "src/Core/Database.php:9",
    ),
    (
        "contains",
        "App\\Core\\Database",
        "App\\Core\\Database::__construct",
        "src/Core/Database.php:11",
    ),
    ("contains", "App\\Core\\Database", "App\\Core\\Database::$dsn", "src/Core/Database.php:11"),
    ("contains", "App\\Core\\Database", "App\\Core\\Database::connect", "src/Core/Database.php:15"),
    ("contains", "App\\Core\\Database", "App\\Core\\Database::query", "src/Core/Database.php:21"),
    ("contains", "App\\Core\\Database", "App\\Core\\Database::__call", "src/Core/Database.php:27"),
    ("contains", "src/Core/Logger.php", "App\\Core", "src/Core/Logger.php:2"),
    ("contains", "src/Core/Logger.php", "App\\Core\\LoggerInterface", "src/Core/Logger.php:4"),
    (
        "contains",
        "App\\Core\\LoggerInterface",
        "App\\Core\\LoggerInterface::write",
        "src/Core/Logger.php:6",
    ),
    ("contains", "src/Core/Logger.php", "App\\Core\\FileLogger", "src/Core/Logger.php:9"),
    ("contains", "App\\Core\\FileLogger", "App\\Core\\FileLogger::write", "src/Core/Logger.php:11"),
    ("contains", "src/Core/Logger.php", "App\\Core\\Loggable", "src/Core/Logger.php:17"),
    ("contains", "App\\Core\\Loggable", "App\\Core\\Loggable::$logger", "src/Core/Logger.php:19"),
    ("contains", "App\\Core\\Loggable", "App\\Core\\Loggable::log", "src/Core/Logger.php:21"),
    ("contains", "src/bootstrap.php", "format_money", "src/bootstrap.php:19"),
    ("defines", "App\\Billing", "App\\Billing\\Invoice", "src/Billing/Invoice.php:11"),
    ("defines", "App\\Billing", "App\\Billing\\Model", "src/Billing/Model.php:6"),
    ("defines", "App\\Billing", "App\\Billing\\Chargeable", "src/Billing/PaymentGateway.php:4"),
    ("defines", "App\\Billing", "App\\Billing\\PaymentGateway", "src/Billing/PaymentGateway.php:9"),
    ("defines", "App\\Billing", "App\\Billing\\Report", "src/Billing/Report.php:4"),
    ("defines", "App\\Core", "App\\Core\\Database", "src/Core/Database.php:7"),
    ("defines", "App\\Core", "App\\Core\\LoggerInterface", "src/Core/Logger.php:4"),
    ("defines", "App\\Core", "App\\Core\\FileLogger", "src/Core/Logger.php:9"),
    ("defines", "App\\Core", "App\\Core\\Loggable", "src/Core/Logger.php:17"),
    (
        "contains",
        "App\\Billing\\Invoice::find",
        "App\\Billing\\Invoice::find#sql@25",
        "src/Billing/Invoice.php:25",
    ),
    (
        "contains",
        "App\\Billing\\Invoice::charge",
        "App\\Billing\\Invoice::charge#sql@37",
        "src/Billing/Invoice.php:37",
    ),
    (
        "contains",
        "App\\Billing\\Model::save",
        "App\\Billing\\Model::save#sql@12",
        "src/Billing/Model.php:12",
    ),
    (
        "contains",
        "App\\Billing\\Report::monthly",
        "App\\Billing\\Report::monthly#sql@9",
        "src/Billing/Report.php:9",
    ),
    ("contains", "invoices", "invoices.id", "db/migrations/001_invoices.sql:1"),
    ("contains", "invoices", "invoices.amount", "db/migrations/001_invoices.sql:1"),
    ("contains", "invoices", "invoices.status", "db/migrations/001_invoices.sql:1"),
    ("contains", "invoices", "invoices.created_at", "db/migrations/001_invoices.sql:1"),
    ("contains", "payments", "payments.id", "db/migrations/001_invoices.sql:7"),
    ("contains", "payments", "payments.invoice_id", "db/migrations/001_invoices.sql:7"),
    ("contains", "payments", "payments.amount", "db/migrations/001_invoices.sql:7"),
}


def _graph(root: Path) -> tuple[set[tuple], set[tuple], set[tuple]]:
    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        nodes = g.db.query(
            "SELECT node_id, kind, fqn, path, start_line, end_line FROM node WHERE rev_from <= ?1 AND rev_to > ?1",
            (rev_no(rev),),
        )
        name = {n[0]: n[2] for n in nodes}
        edges = g.db.query(
            "SELECT kind, src, dst, evidence_path, evidence_line, provenance, confidence FROM edge WHERE rev_from <= ?1 AND rev_to > ?1",
            (rev_no(rev),),
        )
    finally:
        g.close()
    got_nodes = {n[1:] for n in nodes}
    got_edges = {
        (k, name[s], name[d], f"{p}:{ln}", prov, conf)
        for k, s, d, p, ln, prov, conf in edges
        if k not in ("contains", "defines")
    }
    got_struct = {
        (k, name[s], name[d], f"{p}:{ln}")
        for k, s, d, p, ln, _p, _c in edges
        if k in ("contains", "defines")
    }
    return got_nodes, got_edges, got_struct


def test_pilot_nodes_and_edges_exactly(indexed_pilot: Path) -> None:
    nodes, edges, struct = _graph(indexed_pilot)
    assert nodes == NODES
    assert edges - EDGES == set(), "unexpected edges"
    assert EDGES - edges == set(), "missing edges"
    assert struct == STRUCTURE


def test_every_edge_has_evidence_and_confidence(indexed_pilot: Path) -> None:
    layout = config.Layout(indexed_pilot)
    g = GraphStore(layout.graph_db, readonly=True)
    rows = g.db.query(
        "SELECT provenance, evidence_path, evidence_line, confidence, sources FROM edge"
    )
    assert rows
    for prov, path, line, conf, sources in rows:
        assert path and line and line > 0
        assert (prov == "stated" and conf == 1.0) or (prov == "derived" and 0 < conf < 1)
        assert sources.startswith("[")
