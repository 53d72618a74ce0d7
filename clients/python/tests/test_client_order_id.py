import unittest
from decimal import Decimal

from helpers import dj


class ClientOrderIdTest(unittest.TestCase):
    def test_documented_vector(self):
        self.assertEqual(dj.client_order_id("q500", "media_movil", "AAPL", "buy", 500, "2026-08-10T15:30:00Z"), "q500-d802a55a0df8ed0d3231")

    def test_the_compact_form_for_venues_whose_ids_are_letters_and_digits_only(self):
        # The documented vector without the dash (OKX's clOrdId: 1 to 32 letters and digits).
        self.assertEqual(dj.client_order_id("q500", "media_movil", "AAPL", "buy", 500, "2026-08-10T15:30:00Z", "compact"), "q500d802a55a0df8ed0d3231")
        self.assertRegex(dj.client_order_id("gamma1234567", "s", "AAPL", "buy", 1, "2026-08-10T15:30:00Z", "compact"), r"^[A-Za-z0-9]{32}$")
        for prefix in ("gamma12345678", "q_500", "q.500", ""):
            with self.subTest(prefix=prefix):
                with self.assertRaises(dj.InvalidDecisionError):
                    dj.client_order_id(prefix, "s", "AAPL", "buy", 1, "2026-08-10T15:30:00Z", "compact")
        with self.assertRaises(ValueError):
            dj.client_order_id("q500", "s", "AAPL", "buy", 1, "2026-08-10T15:30:00Z", "underscore")

    def test_the_same_decision_gives_the_same_id_whatever_the_quantity_type(self):
        ids = {dj.client_order_id("q500", "media_movil", "AAPL", "buy", q, "2026-08-10T15:30:00Z") for q in (500, 500.0, Decimal("500"), Decimal("500.000"), "500", "5e2")}
        self.assertEqual(ids, {"q500-d802a55a0df8ed0d3231"})

    def test_quantities_are_the_shortest_plain_decimal_of_the_stored_double(self):
        cases = {
            1e-05: "0.00001",
            0.1 + 0.2: "0.30000000000000004",
            1e21: "1000000000000000000000",
            1e-7: "0.0000001",
            500.0: "500",
            0.25: "0.25",
            0.001: "0.001",
            1234.5: "1234.5",
            123456789012345680000.0: "123456789012345680000",
            Decimal("0.00001"): "0.00001",
            Decimal("1E+3"): "1000",
        }
        for qty, text in cases.items():
            with self.subTest(qty=qty):
                self.assertEqual(dj.format_qty(qty), text)

    def test_refuses_quantities_that_are_not_above_zero(self):
        for qty in (-0.0, 0, 0.0, -1, float("nan"), float("inf"), float("-inf"), True, None, "abc", Decimal("NaN")):
            with self.subTest(qty=qty):
                with self.assertRaises(ValueError):
                    dj.format_qty(qty)

    def test_refuses_a_pipe_or_an_empty_field_and_a_bad_prefix(self):
        with self.assertRaises(dj.InvalidDecisionError):
            dj.client_order_id("q500", "a|b", "AAPL", "buy", 1, "2026-08-10T15:30:00Z")
        with self.assertRaises(dj.InvalidDecisionError):
            dj.client_order_id("q500", "", "AAPL", "buy", 1, "2026-08-10T15:30:00Z")
        with self.assertRaises(dj.InvalidDecisionError):
            dj.client_order_id("q 500", "s", "AAPL", "buy", 1, "2026-08-10T15:30:00Z")

    def test_times_and_numbers_are_written_as_javascript_writes_them(self):
        import datetime

        at = datetime.datetime(2026, 8, 10, 15, 31, 2, 417999, tzinfo=datetime.timezone.utc)
        self.assertEqual(dj.iso_utc(at), "2026-08-10T15:31:02.417Z")
        with self.assertRaises(ValueError):
            dj.iso_utc(datetime.datetime(2026, 8, 10))
        self.assertEqual([dj._js_number(x) for x in (1e21, 1e-7, 1.5e-6, 123.0, -12.5, 1e20, -0.0)], ["1e+21", "1e-7", "0.0000015", "123", "-12.5", "100000000000000000000", "0"])
        self.assertEqual(dj._js_json({"a": 500.0, "b": None, "c": "é\n", "d": True}), '{"a":500,"b":null,"c":"é\\n","d":true}')


if __name__ == "__main__":
    unittest.main()
