"""Monthly closing (clôture de période): the checklist a treasurer works through, verified and recorded,
then the month locked; its closing pack PDF. A workflow over comptabilite, paiements and lcbft, above them."""
