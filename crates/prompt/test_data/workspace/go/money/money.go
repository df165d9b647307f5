package money

// Round rounds to cents.
func Round(amount float64) float64 {
	return float64(int(amount*100)) / 100
}

func Unused() {}

type Amount struct {
	Cents int
}
