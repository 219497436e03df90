from shop.reports import monthly_report, yearly_report, Summary, quarterly_report


class Ledger:
    title = "Ledger"

    def close(self, month):
        return monthly_report(month), yearly_report(month), Summary()

    def quarter(self, month):
        return quarterly_report(month)
