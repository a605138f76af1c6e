// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface ICometToken {
    function decimals() external view returns (uint8);
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

interface ICometFeed {
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
}

/// @title Comet: a devnet look-alike of a Compound v3 market.
/// @notice Compound v3's own signatures for `supply`, `withdraw`, `balanceOf`, `borrowBalanceOf`,
///         `collateralBalanceOf`, `baseToken`, `baseTokenPriceFeed`, `numAssets` and `getAssetInfo`, with working
///         balances: supplying the base token lends it (repaying any borrow first), supplying a collateral asset
///         backs a borrow, withdrawing more base token than supplied borrows the rest against the collateral's
///         `borrowCollateralFactor` (18 decimals) at its feed's price. No interest accrues.
contract Comet {
    struct AssetInfo {
        uint8 offset;
        address asset;
        address priceFeed;
        uint64 scale;
        uint64 borrowCollateralFactor;
        uint64 liquidateCollateralFactor;
        uint64 liquidationFactor;
        uint128 supplyCap;
    }

    address public immutable owner;
    address public immutable baseToken;
    address public immutable baseTokenPriceFeed;
    AssetInfo[] private assets;
    mapping(address => uint256) private supplied;
    mapping(address => uint256) private borrowed;
    mapping(address => mapping(address => uint128)) private collateral;

    error NotOwner();
    error NotCollateral();
    error NotEnoughCollateral();

    constructor(address baseToken_, address baseTokenPriceFeed_) {
        owner = msg.sender;
        baseToken = baseToken_;
        baseTokenPriceFeed = baseTokenPriceFeed_;
    }

    /// @notice Adds a collateral asset priced by `priceFeed`, borrowable against at `borrowCollateralFactor`.
    function addAsset(address asset, address priceFeed, uint64 borrowCollateralFactor, uint64 liquidateCollateralFactor)
        external
    {
        if (msg.sender != owner) revert NotOwner();
        assets.push(
            AssetInfo(
                uint8(assets.length),
                asset,
                priceFeed,
                uint64(10 ** ICometToken(asset).decimals()),
                borrowCollateralFactor,
                liquidateCollateralFactor,
                0.95e18,
                type(uint128).max
            )
        );
    }

    /// @notice How many collateral assets the market has.
    function numAssets() external view returns (uint8) {
        return uint8(assets.length);
    }

    /// @notice The collateral asset at `i`.
    function getAssetInfo(uint8 i) external view returns (AssetInfo memory) {
        return assets[i];
    }

    /// @notice Moves `amount` of `asset` from the caller: lends the base token, or adds collateral.
    function supply(address asset, uint256 amount) external {
        ICometToken(asset).transferFrom(msg.sender, address(this), amount);
        if (asset == baseToken) {
            uint256 repaid = amount < borrowed[msg.sender] ? amount : borrowed[msg.sender];
            borrowed[msg.sender] -= repaid;
            supplied[msg.sender] += amount - repaid;
        } else {
            _info(asset);
            collateral[msg.sender][asset] += uint128(amount);
        }
    }

    /// @notice Pays `amount` of `asset` to the caller: its supply first, then, for the base token, a borrow.
    function withdraw(address asset, uint256 amount) external {
        if (asset == baseToken) {
            uint256 fromSupply = amount < supplied[msg.sender] ? amount : supplied[msg.sender];
            supplied[msg.sender] -= fromSupply;
            borrowed[msg.sender] += amount - fromSupply;
        } else {
            collateral[msg.sender][asset] -= uint128(amount);
        }
        if (!_collateralized(msg.sender)) revert NotEnoughCollateral();
        ICometToken(asset).transfer(msg.sender, amount);
    }

    /// @notice The base token `account` has supplied, in its base units.
    function balanceOf(address account) external view returns (uint256) {
        return supplied[account];
    }

    /// @notice The base token `account` owes, in its base units.
    function borrowBalanceOf(address account) external view returns (uint256) {
        return borrowed[account];
    }

    /// @notice The collateral `account` holds in `asset`, in its base units.
    function collateralBalanceOf(address account, address asset) external view returns (uint128) {
        return collateral[account][asset];
    }

    function _info(address asset) private view returns (AssetInfo memory) {
        for (uint256 i = 0; i < assets.length; i++) if (assets[i].asset == asset) return assets[i];
        revert NotCollateral();
    }

    function _collateralized(address account) private view returns (bool) {
        if (borrowed[account] == 0) return true;
        uint256 capacity;
        for (uint256 i = 0; i < assets.length; i++) {
            AssetInfo memory info = assets[i];
            uint256 amount = collateral[account][info.asset];
            if (amount == 0) continue;
            capacity += (amount * _price(info.priceFeed) * info.borrowCollateralFactor) / info.scale / 1e18;
        }
        uint256 debt = (borrowed[account] * _price(baseTokenPriceFeed)) / 10 ** ICometToken(baseToken).decimals();
        return capacity >= debt;
    }

    function _price(address feed) private view returns (uint256) {
        (, int256 answer,,,) = ICometFeed(feed).latestRoundData();
        return uint256(answer);
    }
}
