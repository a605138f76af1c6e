// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IAaveToken {
    function decimals() external view returns (uint8);
    function symbol() external view returns (string memory);
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

interface IAaveFeed {
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
}

/// @title AavePool: a devnet look-alike of Aave v3's Pool.
/// @notice The Pool's own signatures for `supply`, `withdraw`, `borrow`, `repay`, `getUserAccountData` and
///         `getReservesList`, with working balances: supplied tokens are held here and borrowed ones paid out from
///         here. No interest accrues (the liquidity index stays 1), so scaled balances equal real ones. Values in the
///         base currency are USD with 8 decimals from each reserve's AggregatorV3 feed, as Aave's oracle gives them.
contract AavePool {
    struct Reserve {
        address feed;
        uint16 ltvBps;
        uint16 liquidationThresholdBps;
        bool listed;
    }

    address public immutable owner;
    address[] private reservesList;
    mapping(address => Reserve) public reserves;
    mapping(address => mapping(address => uint256)) private supplied;
    mapping(address => mapping(address => uint256)) private borrowed;

    error NotOwner();
    error NotListed();
    error NotEnoughCollateral();
    error NotEnoughBalance();

    constructor() {
        owner = msg.sender;
    }

    /// @notice Lists `asset`, priced by `feed`, with its loan-to-value and liquidation threshold in basis points.
    function listReserve(address asset, address feed, uint16 ltvBps, uint16 liquidationThresholdBps) external {
        if (msg.sender != owner) revert NotOwner();
        if (!reserves[asset].listed) reservesList.push(asset);
        reserves[asset] = Reserve(feed, ltvBps, liquidationThresholdBps, true);
    }

    /// @notice Aave v3 `supply`: moves `amount` of `asset` from the caller and credits `onBehalfOf`.
    function supply(address asset, uint256 amount, address onBehalfOf, uint16) external {
        if (!reserves[asset].listed) revert NotListed();
        IAaveToken(asset).transferFrom(msg.sender, address(this), amount);
        supplied[asset][onBehalfOf] += amount;
    }

    /// @notice Aave v3 `withdraw`: pays `amount` (all with `type(uint256).max`) of the caller's supply to `to`.
    function withdraw(address asset, uint256 amount, address to) external returns (uint256) {
        uint256 balance = supplied[asset][msg.sender];
        if (amount == type(uint256).max) amount = balance;
        if (amount > balance) revert NotEnoughBalance();
        supplied[asset][msg.sender] = balance - amount;
        _requireHealthy(msg.sender);
        IAaveToken(asset).transfer(to, amount);
        return amount;
    }

    /// @notice Aave v3 `borrow` at a variable rate: pays `amount` to the caller, who must be `onBehalfOf`.
    function borrow(address asset, uint256 amount, uint256, uint16, address onBehalfOf) external {
        if (!reserves[asset].listed) revert NotListed();
        if (onBehalfOf != msg.sender) revert NotEnoughCollateral();
        borrowed[asset][onBehalfOf] += amount;
        _requireHealthy(onBehalfOf);
        IAaveToken(asset).transfer(msg.sender, amount);
    }

    /// @notice Aave v3 `repay`: moves up to the debt (all with `type(uint256).max`) from the caller.
    function repay(address asset, uint256 amount, uint256, address onBehalfOf) external returns (uint256) {
        uint256 debt = borrowed[asset][onBehalfOf];
        if (amount > debt) amount = debt;
        borrowed[asset][onBehalfOf] = debt - amount;
        IAaveToken(asset).transferFrom(msg.sender, address(this), amount);
        return amount;
    }

    /// @notice The listed reserves, in listing order.
    function getReservesList() external view returns (address[] memory) {
        return reservesList;
    }

    /// @notice What `user` supplied and owes of `asset`, in its base units.
    function balancesOf(address asset, address user) external view returns (uint256, uint256) {
        return (supplied[asset][user], borrowed[asset][user]);
    }

    /// @notice Aave v3 `getUserAccountData`: values in USD with 8 decimals, thresholds in basis points, the health
    ///         factor with 18 decimals (`type(uint256).max` without debt).
    function getUserAccountData(address user)
        public
        view
        returns (
            uint256 totalCollateralBase,
            uint256 totalDebtBase,
            uint256 availableBorrowsBase,
            uint256 currentLiquidationThreshold,
            uint256 ltv,
            uint256 healthFactor
        )
    {
        uint256 weightedThreshold;
        uint256 weightedLtv;
        for (uint256 i = 0; i < reservesList.length; i++) {
            (uint256 collateral, uint256 debt, uint256 threshold, uint256 loanToValue) = _valuesOf(reservesList[i], user);
            totalCollateralBase += collateral;
            totalDebtBase += debt;
            weightedThreshold += threshold;
            weightedLtv += loanToValue;
        }
        if (totalCollateralBase > 0) {
            currentLiquidationThreshold = weightedThreshold / totalCollateralBase;
            ltv = weightedLtv / totalCollateralBase;
        }
        uint256 borrowable = weightedLtv / 10_000;
        availableBorrowsBase = borrowable > totalDebtBase ? borrowable - totalDebtBase : 0;
        healthFactor =
            totalDebtBase == 0 ? type(uint256).max : (weightedThreshold * 1e18) / 10_000 / totalDebtBase;
    }

    /// @dev The collateral and debt values of `user` in `asset`, and the collateral weighted by threshold and by LTV.
    function _valuesOf(address asset, address user) private view returns (uint256, uint256, uint256, uint256) {
        Reserve memory reserve = reserves[asset];
        uint256 collateral = _value(asset, reserve.feed, supplied[asset][user]);
        return (
            collateral,
            _value(asset, reserve.feed, borrowed[asset][user]),
            collateral * reserve.liquidationThresholdBps,
            collateral * reserve.ltvBps
        );
    }

    function _requireHealthy(address user) private view {
        (,,,,, uint256 healthFactor) = getUserAccountData(user);
        if (healthFactor < 1e18) revert NotEnoughCollateral();
    }

    function _value(address asset, address feed, uint256 amount) private view returns (uint256) {
        if (amount == 0) return 0;
        (, int256 answer,,,) = IAaveFeed(feed).latestRoundData();
        return (amount * uint256(answer)) / 10 ** IAaveToken(asset).decimals();
    }
}

/// @title AaveProtocolDataProvider: a devnet look-alike of Aave v3's data provider, over an {AavePool}.
/// @notice `getUserReserveData` and `getAllReservesTokens` with Aave's own signatures; balances are current ones.
contract AaveProtocolDataProvider {
    struct TokenData {
        string symbol;
        address tokenAddress;
    }

    AavePool public immutable pool;

    constructor(AavePool pool_) {
        pool = pool_;
    }

    /// @notice Every listed reserve with its symbol.
    function getAllReservesTokens() external view returns (TokenData[] memory tokens) {
        address[] memory list = pool.getReservesList();
        tokens = new TokenData[](list.length);
        for (uint256 i = 0; i < list.length; i++) tokens[i] = TokenData(IAaveToken(list[i]).symbol(), list[i]);
    }

    /// @notice Aave v3 `getUserReserveData`: the current aToken balance and variable debt of `user` in `asset`.
    function getUserReserveData(address asset, address user)
        external
        view
        returns (
            uint256 currentATokenBalance,
            uint256 currentStableDebt,
            uint256 currentVariableDebt,
            uint256 principalStableDebt,
            uint256 scaledVariableDebt,
            uint256 stableBorrowRate,
            uint256 liquidityRate,
            uint40 stableRateLastUpdated,
            bool usageAsCollateralEnabled
        )
    {
        (currentATokenBalance, currentVariableDebt) = pool.balancesOf(asset, user);
        scaledVariableDebt = currentVariableDebt;
        usageAsCollateralEnabled = currentATokenBalance > 0;
        return (
            currentATokenBalance,
            currentStableDebt,
            currentVariableDebt,
            principalStableDebt,
            scaledVariableDebt,
            stableBorrowRate,
            liquidityRate,
            stableRateLastUpdated,
            usageAsCollateralEnabled
        );
    }
}
