package main

import (
	"fmt"

	"example.com/shop/money"
)

func main() {
	fmt.Println(money.Round(1.234))
}
